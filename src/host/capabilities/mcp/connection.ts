// One MCP server's client for the whole process, shared by every agent that uses it: started on
// first use, its tool list cached (and re-read when the server says it changed), restarted with
// backoff when it dies. A call in flight when the server dies fails with a message that says so
// and is never retried: the tool may already have had its effect.
import { CadreError, isCadreError } from '../../../shared/errors.js';
import { loadSdkAdapter } from './adapter-loader.js';
import type { McpRawResult, McpSession, McpToolInfo } from './session.js';
import type { SandboxedCommand } from './sandbox-command.js';
import { terminalText } from '../../terminal-text.js';
import { waitFor } from './wait-for.js';
import { describeExit, exitWithin, startServerProcess, type ServerProcess } from './server-process.js';
import { describeTarget, type ServerSpec, type StdioTarget } from './server-spec.js';

/** Where a connection is in its life. */
export type ConnectionState = 'idle' | 'starting' | 'ready' | 'restarting' | 'failed' | 'closed';

/** What a connection needs from the hub. */
export interface ConnectionDeps {
  /** The command that runs a stdio server (sandboxed as configured). */
  command(target: StdioTarget, spec: ServerSpec): Promise<SandboxedCommand>;
  clientVersion: string;
}

/** Restart delays: 250 ms doubling to 10 s; a server up for a minute starts over at 250 ms. */
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 10_000;
const STABLE_AFTER_MS = 60_000;
/** After this many failed starts in a row the server is `failed`; a new use retries at most every 30 s. */
const MAX_FAILED_STARTS = 5;
const FAILED_RETRY_MS = 30_000;

/** One server, one client. */
export class McpConnection {
  state: ConnectionState = 'idle';
  /** Starts so far (1 after the first start; each restart adds one). */
  starts = 0;
  /** Times the server went away while in use. */
  crashes = 0;
  /** The last thing that went wrong, for listings and messages. */
  lastError: string | undefined;
  /** The running server process (stdio servers). */
  pid: number | undefined;
  sandbox: 'bwrap' | 'none' | undefined;
  private session: McpSession | undefined;
  private process: ServerProcess | undefined;
  private tools: McpToolInfo[] = [];
  private toolsStale = false;
  private starting: Promise<McpSession> | undefined;
  private listing: Promise<McpToolInfo[]> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private cancelRestart: ((reason: Error) => void) | undefined;
  private failedStarts = 0;
  private readySince = 0;
  private lastAttempt = 0;

  constructor(
    readonly spec: ServerSpec,
    private readonly deps: ConnectionDeps,
  ) {}

  /** Starts the server when needed and resolves with its tools. */
  async listTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    const session = await this.ensure(signal, this.spec.startupTimeoutMs);
    if (this.toolsStale) {
      this.listing ??= session
        .listTools({ timeoutMs: this.spec.startupTimeoutMs, ...(signal ? { signal } : {}) })
        .then((tools) => {
          this.tools = tools;
          this.toolsStale = false;
          return tools;
        })
        .finally(() => (this.listing = undefined));
      return this.listing;
    }
    return this.tools;
  }

  /**
   * Calls `tool`. Waits for a start or restart in progress (within the call's own timeout); a call
   * the server's death interrupts rejects with `mcp_error` and is not retried.
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<McpRawResult> {
    const started = performance.now();
    const session = await this.ensure(options.signal, options.timeoutMs);
    const left = Math.max(1, options.timeoutMs - (performance.now() - started));
    const process = this.process;
    try {
      return await session.callTool(tool, args, { timeoutMs: left, signal: options.signal });
    } catch (error) {
      if (!isCadreError(error) || error.details?.kind !== 'closed') throw error;
      const exit = process ? await exitWithin(process, 200) : undefined;
      this.dropSession(session);
      throw new CadreError(
        'mcp_error',
        `the MCP server "${this.spec.name}" ${exit ? describeExit(exit) : 'closed the connection'} while ${tool} was running; ` +
          'the call was not retried (it may or may not have taken effect). The server is being restarted; you may call the tool again.',
        { kind: 'closed' },
      );
    }
  }

  /** Ends the server (and its whole process tree); no restart follows. */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.restartTimer);
    this.cancelRestart?.(
      new CadreError('cancelled', `the MCP server "${this.spec.name}" has been shut down`),
    );
    await this.starting?.catch(() => undefined);
    const session = this.session;
    this.session = undefined;
    await session?.close();
    await this.process?.stop();
  }

  /** Read through a method: the state changes across awaits, which narrowing cannot see. */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private ensure(signal: AbortSignal | undefined, waitMs: number): Promise<McpSession> {
    if (this.state === 'closed')
      return Promise.reject(
        new CadreError('cancelled', `the MCP server "${this.spec.name}" has been shut down`),
      );
    if (this.session && this.state === 'ready') return Promise.resolve(this.session);
    const what = `starting the MCP server "${this.spec.name}"`;
    if (this.starting) return waitFor(this.starting, signal, waitMs, what);
    if (this.state === 'failed' && Date.now() - this.lastAttempt < FAILED_RETRY_MS)
      return Promise.reject(new CadreError('mcp_error', this.lastError ?? `${what}: it failed`));
    return waitFor(this.begin(0), signal, waitMs, what);
  }

  /** Starts after `delayMs` (a restart's backoff); every caller meanwhile waits for this one start. */
  private begin(delayMs: number): Promise<McpSession> {
    const pause =
      delayMs <= 0
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            this.restartTimer = setTimeout(resolve, delayMs);
            this.cancelRestart = reject;
          });
    const tracked: Promise<McpSession> = pause
      .then(() => this.start())
      .finally(() => {
        this.cancelRestart = undefined;
        if (this.starting === tracked) this.starting = undefined;
      });
    this.starting = tracked;
    // A restart that fails is tried again, with a longer pause, a few times; a first start is not.
    tracked.catch(() => {
      if (this.state === 'failed' && this.crashes > 0 && this.failedStarts < MAX_FAILED_STARTS)
        this.scheduleRestart();
    });
    return tracked;
  }

  private async start(): Promise<McpSession> {
    if (this.state === 'closed')
      throw new CadreError('cancelled', `the MCP server "${this.spec.name}" has been shut down`);
    if (this.state !== 'restarting') this.state = 'starting';
    this.starts++;
    this.lastAttempt = Date.now();
    let process: ServerProcess | undefined;
    try {
      const target = this.spec.target;
      let session: McpSession | undefined;
      const hooks = {
        onClose: () => this.onUnexpectedClose(session),
        onToolsChanged: () => (this.toolsStale = true),
      };
      const options = { timeoutMs: this.spec.startupTimeoutMs, clientVersion: this.deps.clientVersion };
      const { openSession } = loadSdkAdapter();
      if (target.type === 'stdio') {
        const command = await this.deps.command(target, this.spec);
        this.sandbox = command.sandbox;
        process = await startServerProcess(command);
        this.process = process;
        this.pid = process.pid;
        session = await openSession({ type: 'process', process }, hooks, options);
      } else {
        session = await openSession(target, hooks, options);
      }
      this.tools = await session.listTools({ timeoutMs: this.spec.startupTimeoutMs });
      this.toolsStale = false;
      if (this.isClosed()) {
        await session.close();
        throw new CadreError('cancelled', `the MCP server "${this.spec.name}" has been shut down`);
      }
      this.session = session;
      this.state = 'ready';
      this.readySince = Date.now();
      this.lastError = undefined;
      return session;
    } catch (error) {
      await process?.stop();
      if (this.isClosed()) throw error;
      this.failedStarts++;
      const tail = process?.stderrTail().trim();
      const why = isCadreError(error) ? error.message : String(error);
      this.lastError = terminalText(
        `the MCP server "${this.spec.name}" (${describeTarget(this.spec.target)}) could not start: ${why}` +
          (tail ? `; its stderr ends with: ${tail.slice(-500)}` : ''),
      );
      this.state = 'failed';
      const code = isCadreError(error) && error.code === 'sandbox_unavailable' ? error.code : 'mcp_error';
      throw new CadreError(code, this.lastError);
    }
  }

  /** The current session went away on its own: the SDK fails what was in flight; restart after a backoff. */
  private onUnexpectedClose(session: McpSession | undefined): void {
    if (this.state === 'closed' || session === undefined || this.session !== session) return;
    this.crashes++;
    const process = this.process;
    this.session = undefined;
    const tail = terminalText(process?.stderrTail().trim() ?? '');
    this.lastError = `the MCP server "${this.spec.name}" closed the connection`;
    void (process ? exitWithin(process, 1000) : Promise.resolve(undefined)).then((exit) => {
      if (exit)
        this.lastError =
          `the MCP server "${this.spec.name}" ${describeExit(exit)}` +
          (tail ? `; its stderr ends with: ${tail.slice(-500)}` : '');
    });
    if (Date.now() - this.readySince > STABLE_AFTER_MS) this.failedStarts = 0;
    this.scheduleRestart();
  }

  private dropSession(session: McpSession): void {
    if (this.session !== session) return;
    // A remote session whose connection failed: reconnect later, as after a process crash.
    this.onUnexpectedClose(session);
    void session.close();
  }

  private scheduleRestart(): void {
    if (this.state === 'closed' || this.starting) return;
    this.state = 'restarting';
    void this.begin(Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.failedStarts)).catch(
      () => undefined,
    );
  }
}
