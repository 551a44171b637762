// A stdio MCP server's process: spawned as the leader of its own process group (so one signal
// reaches everything it started; under bubblewrap its PID namespace goes down with it), its stderr
// kept as a short tail for error messages, and a stop that closes stdin, then sends SIGTERM, then
// SIGKILL. Groups still alive when the host exits are killed on the way out.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CadreError } from '../../../shared/errors.js';

/** What to run. */
export interface ServerCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** How a server process ended. */
export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running server process. */
export interface ServerProcess {
  readonly pid: number;
  readonly child: ChildProcessWithoutNullStreams;
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<ServerExit>;
  /** The last few KB the server wrote to stderr. */
  stderrTail(): string;
  /** Ends the process and everything it started; resolves once it has exited. */
  stop(): Promise<void>;
}

const STDERR_TAIL = 4096;
/** How long a server gets to exit after its stdin closes, then after SIGTERM. */
const STDIN_GRACE_MS = 300;
const TERM_GRACE_MS = 1500;

const liveGroups = new Set<number>();
let exitHook = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the whole group is gone.
  }
}

function track(pid: number): void {
  liveGroups.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const group of liveGroups) killGroup(group, 'SIGKILL');
  });
}

/** Starts `command`; rejects with `mcp_error` when it cannot be spawned. */
export function startServerProcess(command: ServerCommand): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let tail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // A server that dies mid-write makes stdin emit EPIPE: the exit is what reports it.
    child.stdin.on('error', () => undefined);
    const exited = new Promise<ServerExit>((done) =>
      child.once('exit', (code, signal) => {
        if (child.pid !== undefined) {
          // Whatever it left behind in its group goes with it.
          killGroup(child.pid, 'SIGKILL');
          liveGroups.delete(child.pid);
        }
        done({ code, signal });
      }),
    );
    child.once('error', (error) => {
      if (child.pid === undefined)
        reject(new CadreError('mcp_error', `could not start ${command.file}: ${error.message}`));
    });
    child.once('spawn', () => {
      const pid = child.pid as number;
      track(pid);
      let stopping: Promise<void> | undefined;
      resolve({
        pid,
        child,
        exited,
        stderrTail: () => tail,
        stop: () => (stopping ??= stopProcess(child, pid, exited)),
      });
    });
  });
}

async function stopProcess(
  child: ChildProcessWithoutNullStreams,
  pid: number,
  exited: Promise<ServerExit>,
): Promise<void> {
  const within = (ms: number) =>
    Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
    ]);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin.end();
  if (await within(STDIN_GRACE_MS)) return;
  killGroup(pid, 'SIGTERM');
  if (await within(TERM_GRACE_MS)) return;
  killGroup(pid, 'SIGKILL');
  await within(TERM_GRACE_MS);
}

/** How a process ended, in words: `exited with code 1`, `was killed (SIGKILL)`. */
export function describeExit(exit: ServerExit): string {
  return exit.signal ? `was killed (${exit.signal})` : `exited with code ${String(exit.code)}`;
}

/** The process's exit, or undefined if it has not exited within `ms`. */
export function exitWithin(process: ServerProcess, ms: number): Promise<ServerExit | undefined> {
  return Promise.race([
    process.exited,
    new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref()),
  ]);
}
