// The audit log: one JSONL line per capability call (who, what, the policy's verdict and why, how
// long, how it ended). Arguments are summarised here, never logged raw: a write logs its path and
// size, not its content; a command is cut short and obvious secrets in it are masked.
import { appendFileSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../shared/errors.js';

/** One capability call, as the capability layer reports it. `args` is the raw request. */
export interface AuditEntry {
  /** Epoch ms; defaults to the log's clock. */
  at?: number;
  runId?: string;
  agentId: string;
  agentType?: string;
  capability: string;
  /** The request as the worker sent it (or a one-line summary); only a summary is written. */
  args: unknown;
  decision: 'allow' | 'ask' | 'deny';
  /** For `ask`: what the person (or the non-interactive resolver) answered. */
  approval?: 'allow' | 'deny';
  /**
   * Who decided: `policy` (a rule or the mode), `user` (a person at the prompt), `session` (a rule
   * a person allowed for the session), `non-interactive` (nobody to ask), or how an unanswered
   * request ended (`cancelled`, `closed`, `timeout`, `prompt-error`).
   */
  decidedBy?: string;
  /** For `ask`: how long the call waited for its answer, in ms. */
  waitedMs?: number;
  reason: string;
  rule?: string;
  durationMs: number;
  ok: boolean;
  errorCode?: string;
}

/** An open audit log. */
export interface AuditLog {
  readonly path: string;
  /** Queues one line; never throws, never blocks. */
  record(entry: AuditEntry): void;
  /** Resolves once every line recorded so far is written. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. Lines recorded later are still written. */
  close(): Promise<void>;
}

/** Options for `createAuditLog`. */
export interface AuditLogOptions {
  clock?: () => number;
  /** How long lines may wait in memory before a write (default 50 ms). */
  flushIntervalMs?: number;
  /** Called when a write fails (the log keeps going). */
  onError?: (error: Error) => void;
}

const MAX_BUFFERED_CHARS = 64 * 1024;
const SECRET_PATTERNS: readonly RegExp[] = [
  /((?:^|\s)--?(?:password|passwd|token|secret|api[-_]?key|auth|access[-_]?key)(?:=|\s+))("[^"]*"|'[^']*'|\S+)/gi,
  /(authorization:\s*(?:bearer|basic|token)?\s*)("[^"]*"|'[^']*'|[^\s"']+)/gi,
  /(\b[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY)[A-Z0-9_]*=)("[^"]*"|'[^']*'|\S+)/g,
  /(\/\/[^/\s:@]+:)([^@\s/]+)(?=@)/g,
];

/** Masks values that look like credentials in a command line. */
export function redactSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((out, re) => out.replace(re, '$1***'), text);
}

function cut(text: unknown, max: number): string | undefined {
  if (typeof text !== 'string') return undefined;
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function safeUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`.slice(0, 300);
  } catch {
    return cut(value, 100);
  }
}

function defined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/** A short, secret-free summary of a capability request. Never throws. */
export function summarizeArgs(capability: string, args: unknown): Record<string, unknown> {
  // A caller that already summarised passes a string: keep it short and masked.
  if (typeof args === 'string') return { summary: cut(redactSecrets(args), 300) };
  if (typeof args !== 'object' || args === null) return Array.isArray(args) ? { count: args.length } : {};
  const a = args as Record<string, unknown>;
  switch (capability) {
    case 'fs.read':
      return defined({ path: cut(a.path, 300), offset: a.offset, limit: a.limit });
    case 'fs.readMany': {
      const paths = Array.isArray(a.paths) ? a.paths : [];
      return { count: paths.length, paths: paths.slice(0, 5).map((p) => cut(p, 300)) };
    }
    case 'fs.glob':
      return defined({ pattern: cut(a.pattern, 200), path: cut(a.path, 300) });
    case 'fs.stat':
    case 'fs.list':
      return defined({ path: cut(a.path, 300) });
    case 'fs.write':
      return defined({
        path: cut(a.path, 300),
        bytes: typeof a.content === 'string' ? Buffer.byteLength(a.content) : undefined,
      });
    case 'exec.run':
      return defined({
        command: typeof a.command === 'string' ? cut(redactSecrets(a.command), 300) : undefined,
        timeoutMs: a.timeoutMs,
      });
    case 'web.fetch':
      return defined({ url: safeUrl(a.url) });
    case 'model.request':
      return defined({ method: cut(a.method, 10), url: safeUrl(a.url) });
    case 'mcp.call':
      return defined({
        tool: cut(a.tool, 200),
        inputKeys:
          typeof a.input === 'object' && a.input !== null ? Object.keys(a.input).slice(0, 20) : undefined,
      });
    case 'agents.task':
      return defined({
        subagent_type: cut(a.subagent_type, 100),
        description: cut(a.description, 200),
        run_in_background: a.run_in_background,
        resume: cut(a.resume, 100),
      });
    case 'agents.output':
    case 'agents.stop':
      return defined({ agentId: cut(a.agentId, 100) });
    case 'todos.write':
      return { count: Array.isArray(a.todos) ? a.todos.length : 0 };
    default:
      return { keys: Object.keys(a).slice(0, 20) };
  }
}

function line(entry: AuditEntry, now: number): string {
  const out = defined({
    at: typeof entry.at === 'number' ? entry.at : now,
    runId: entry.runId,
    agentId: entry.agentId,
    agentType: entry.agentType,
    capability: entry.capability,
    args: summarizeArgs(String(entry.capability), entry.args),
    decision: entry.decision,
    approval: entry.approval,
    decidedBy: typeof entry.decidedBy === 'string' ? cut(entry.decidedBy, 40) : undefined,
    waitedMs: typeof entry.waitedMs === 'number' ? Math.round(entry.waitedMs) : undefined,
    reason: cut(entry.reason, 1000),
    rule: entry.rule,
    durationMs: typeof entry.durationMs === 'number' ? Math.round(entry.durationMs * 1000) / 1000 : undefined,
    ok: entry.ok,
    errorCode: entry.errorCode,
  });
  return `${JSON.stringify(out)}\n`;
}

/**
 * Opens (creating directories as needed) an append-only JSONL audit log. Lines are buffered for at
 * most `flushIntervalMs`; `close()` writes them all, and a process exit writes what is left.
 * Rejects with `io_error` when the directory cannot be created.
 */
export async function createAuditLog(file: string, options: AuditLogOptions = {}): Promise<AuditLog> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
  } catch (error) {
    throw new CadreError(
      'io_error',
      `cannot create the audit log directory for ${file}: ${(error as Error).message}`,
    );
  }
  const clock = options.clock ?? Date.now;
  const interval = options.flushIntervalMs ?? 50;
  let buffer: string[] = [];
  let buffered = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  const writeNow = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return chain;
    const text = buffer.join('');
    buffer = [];
    buffered = 0;
    chain = chain.then(async () => {
      try {
        await appendFile(file, text);
      } catch (error) {
        options.onError?.(error as Error);
      }
    });
    return chain;
  };
  // Lines still in memory when the process exits are written synchronously: the log is not lossy.
  const onExit = () => {
    if (buffer.length === 0) return;
    try {
      appendFileSync(file, buffer.join(''));
      buffer = [];
    } catch {
      // Nothing left to report to at exit.
    }
  };
  process.on('exit', onExit);

  return {
    path: file,
    record(entry) {
      let text: string;
      try {
        text = line(entry, clock());
      } catch (error) {
        text = `${JSON.stringify({ at: clock(), capability: String(entry?.capability), error: `unloggable entry: ${(error as Error).message}` })}\n`;
      }
      buffer.push(text);
      buffered += text.length;
      if (closed || buffered >= MAX_BUFFERED_CHARS) void writeNow();
      else timer ??= setTimeout(() => void writeNow(), interval).unref();
    },
    flush: () => writeNow(),
    async close() {
      closed = true;
      await writeNow();
      process.off('exit', onExit);
    },
  };
}
