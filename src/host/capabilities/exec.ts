// Runs one shell command for the Bash tool: `bash -c` in the project, inside the sandbox (see
// ./sandbox/), with a timeout, an output cap, and a kill that reaches every process it started.
// No sandbox, no command: only `sandbox: "off"` runs a command without one.
//
// Environment: commands get a minimal one (PATH, HOME, LANG, TERM=dumb, plus what the caller
// passes in `env`), never the host's: API keys and tokens in the host's environment (such as
// ANTHROPIC_API_KEY) must not reach a command a model wrote. HOME is the sandbox's private home,
// or a fresh temp directory (removed afterwards) when unsandboxed.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { ExecRunResult } from '../../shared/capabilities.js';
import { CadreError } from '../../shared/errors.js';
import { OutputCap } from './output-cap.js';
import {
  FEED_FD,
  prepareSandboxed,
  probeSandbox,
  requiredShortfall,
  unavailableMessage,
  type SandboxRequest,
  type SandboxStatus,
} from './sandbox.js';

/** Default and maximum command timeouts (the Bash tool's). */
const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
const MAX_EXEC_TIMEOUT_MS = 600_000;
/** Default cap per output stream; past it the head and tail are kept around a marker. */
const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Grace between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;

export { OutputCap } from './output-cap.js';

/** What the sandbox is built from besides the command and its directories (all optional). */
export type SandboxInputs = Partial<Omit<SandboxRequest, 'projectDir' | 'cwd' | 'pathVar'>>;

/** Options of `runCommand`. */
export interface RunCommandOptions {
  command: string;
  /** The working directory (the project directory, or a directory inside it). */
  cwd: string;
  /** The directory left writable by the sandbox (default `cwd`). */
  projectDir?: string;
  /** Default 120,000; clamped to 1..600,000. */
  timeoutMs?: number;
  /** Cap per stream (default 1 MiB). */
  maxOutputBytes?: number;
  /**
   * `auto`: the best sandbox here, and no command without one; `required`: also refuse unless every
   * limit is enforced (the process cap); `off`: never sandboxed (the caller warns).
   */
  sandbox: 'auto' | 'required' | 'off';
  /** Extra variables on top of the minimal environment. */
  env?: Record<string, string>;
  /** Aborting kills the command's process group and rejects with `cancelled`. */
  signal?: AbortSignal;
  /** A probe result to use instead of probing (the runtime probes once per process). */
  sandboxStatus?: SandboxStatus;
  /** `sandbox.bwrapPath` from the user's config, for the probe. */
  bwrapPath?: string;
  /** What the command may see: home, readable directories, hidden and protected paths, rules. */
  sandboxInputs?: SandboxInputs;
  /** Grace between SIGTERM and SIGKILL (default 2,000 ms). */
  killGraceMs?: number;
}

/** The whole environment a command sees. */
export function commandEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: home,
    LANG: process.env.LANG ?? 'C.UTF-8',
    TERM: 'dumb',
    ...extra,
  };
}

function clampTimeout(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return DEFAULT_EXEC_TIMEOUT_MS;
  return Math.min(Math.max(1, Math.floor(ms)), MAX_EXEC_TIMEOUT_MS);
}

/** The real path of a directory that must exist, or `not_found`. */
async function realDir(dir: string): Promise<string> {
  const real = await realpath(dir).catch(() => undefined);
  const st = real === undefined ? undefined : await stat(real).catch(() => undefined);
  if (real === undefined || !st?.isDirectory()) {
    throw new CadreError('not_found', `working directory not found: ${dir}`, { path: dir });
  }
  return real;
}

/** Process groups still running; killed if the host exits first (sandboxed ones die with bwrap anyway). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function track(pid: number | undefined): void {
  if (pid === undefined) return;
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) killGroup(group, 'SIGKILL');
  });
}

/**
 * Signals a whole process group; a group that is already gone is not an error. Right after the
 * spawn the child may not lead its group yet (it calls setsid before exec): then the child itself
 * is signalled, or a kill sent in that instant would be lost.
 */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: every member has exited.
    }
  }
}

/** The sandbox status a command must run under; throws `sandbox_unavailable` when there is none. */
async function sandboxFor(options: RunCommandOptions): Promise<SandboxStatus> {
  const status =
    options.sandboxStatus ??
    (await probeSandbox(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}));
  if (!status.available)
    throw new CadreError('sandbox_unavailable', unavailableMessage(status), { detail: status.detail });
  const shortfall = options.sandbox === 'required' ? requiredShortfall(status) : undefined;
  if (shortfall !== undefined)
    throw new CadreError(
      'sandbox_unavailable',
      `"sandbox": "required" runs commands only with every limit enforced, and here ${shortfall}; use "auto" to run them anyway`,
      { detail: shortfall },
    );
  return status;
}

/**
 * Runs `bash -c command`. Resolves with exit code or signal, both outputs (capped), and which
 * sandbox was in force; a timeout is a result (`timedOut: true`), not an error. Rejects with
 * `sandbox_unavailable` (no working sandbox and the mode is not `off`), `cancelled` (aborted; the
 * process group is dead by then), `not_found` (no such cwd) or `io_error` (spawn failed).
 */
export async function runCommand(options: RunCommandOptions): Promise<ExecRunResult> {
  const { signal } = options;
  if (signal?.aborted) throw new CadreError('cancelled', 'the command was cancelled before it started');
  const cwd = await realDir(options.cwd);
  const projectDir = options.projectDir === undefined ? cwd : await realDir(options.projectDir);
  if (options.sandbox === 'off') {
    const home = await mkdtemp(path.join(os.tmpdir(), 'cadre-home-'));
    try {
      return await supervise(
        'bash',
        ['-c', options.command],
        cwd,
        commandEnv(home, options.env),
        options,
        'none',
      );
    } finally {
      await rm(home, { recursive: true, force: true }).catch(() => undefined);
    }
  }
  const status = await sandboxFor(options);
  const inputs = options.sandboxInputs ?? {};
  const env = commandEnv('/', options.env);
  const prepared = await prepareSandboxed(
    status,
    {
      projectDir,
      cwd,
      home: inputs.home,
      pathVar: env.PATH ?? '',
      extraRoots: inputs.extraRoots ?? [],
      allowRead: inputs.allowRead ?? [],
      denyRead: inputs.denyRead ?? [],
      protect: inputs.protect ?? [],
      rules: inputs.rules ?? {},
    },
    options.command,
  );
  let result: ExecRunResult;
  try {
    result = await supervise(
      prepared.file,
      prepared.args,
      cwd,
      { ...env, ...prepared.env, HOME: prepared.home },
      options,
      status.mode,
      () => prepared.feed(),
    );
  } catch (error) {
    await prepared.cleanup();
    throw error;
  }
  const notices = await prepared.cleanup();
  return notices.length > 0 ? { ...result, notices } : result;
}

/** The launcher's descriptors: stdout, stderr, and `FEED_FD` for what it reads once the plan is made. */
const FED_STDIO: StdioOptions = ['ignore', 'pipe', 'pipe', 'ignore', 'pipe'];

/** Writes the plan's part of the launch to the launcher's `FEED_FD` and closes it; `failed` if none. */
function feedLauncher(
  child: ChildProcess,
  feed: () => Promise<Buffer>,
  failed: (error: unknown) => void,
): void {
  const sink = child.stdio[FEED_FD] as Writable | null | undefined;
  // A launcher already gone (killed, timed out) has nothing left to read.
  sink?.on('error', () => undefined);
  feed().then(
    (data) => sink?.end(data),
    (error: unknown) => {
      sink?.destroy();
      failed(error);
    },
  );
}

/** How `start` spawns: where, with what, how much output to keep, and the plan to feed, if any. */
interface StartOptions {
  cwd: string;
  env: Record<string, string>;
  max: number;
  feed: (() => Promise<Buffer>) | undefined;
}

/**
 * Spawns the command in a new process group (detached: one kill reaches its children too), with
 * its output collected up to `max` bytes a stream. With a `feed`, the plan is made while the
 * launcher starts, and written to its `FEED_FD`; a plan that cannot be made kills the launch
 * unrun and is kept in `plan.error`.
 */
function start(file: string, args: string[], { cwd, env, max, feed }: StartOptions) {
  const stdio: StdioOptions = feed !== undefined ? FED_STDIO : ['ignore', 'pipe', 'pipe'];
  const child = spawn(file, args, { cwd, env, detached: true, stdio });
  track(child.pid);
  // Both stdio forms pipe descriptors 1 and 2.
  const [childOut, childErr] = [child.stdout, child.stderr] as [Readable, Readable];
  const stdout = new OutputCap(max);
  const stderr = new OutputCap(max);
  childOut.on('data', (chunk: Buffer) => stdout.push(chunk));
  childErr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const plan: { error?: unknown } = {};
  if (feed !== undefined)
    feedLauncher(child, feed, (error) => {
      plan.error = error;
      killGroup(child.pid, 'SIGKILL');
    });
  return { child, childOut, childErr, stdout, stderr, plan };
}

/** Spawns in a new process group and owns its whole life: output, timeout, abort, cleanup. */
function supervise(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  options: RunCommandOptions,
  sandbox: ExecRunResult['sandbox'],
  feed?: () => Promise<Buffer>,
): Promise<ExecRunResult> {
  const timeoutMs = clampTimeout(options.timeoutMs);
  const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const grace = options.killGraceMs ?? KILL_GRACE_MS;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // Aborted while its sandbox was being prepared: nothing is started at all.
    if (options.signal?.aborted) {
      reject(new CadreError('cancelled', 'the command was cancelled before it started'));
      return;
    }
    const { child, childOut, childErr, stdout, stderr, plan } = start(file, args, { cwd, env, max, feed });
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;

    const escalate = () => {
      killGroup(child.pid, 'SIGTERM');
      // Not cleared when the command settles: a leftover that ignores SIGTERM must still die.
      killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      escalate();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      escalate();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      clearTimeout(timer);
      clearTimeout(closeTimer);
      options.signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const finish = (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
      if (!settle()) return;
      if (plan.error !== undefined) {
        reject(plan.error);
        return;
      }
      if (aborted) {
        // The run is ending (the host may exit next, before the grace timer): whatever the
        // command left in its group that ignored SIGTERM goes now.
        killGroup(child.pid, 'SIGKILL');
        reject(new CadreError('cancelled', 'the command was cancelled; its processes were killed'));
        return;
      }
      resolve({
        exitCode,
        signal: exitSignal,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
        sandbox,
        durationMs: Math.round(performance.now() - started),
      });
    };

    child.on('error', (error) => {
      killGroup(child.pid, 'SIGKILL');
      if (!settle()) return;
      reject(new CadreError('io_error', `could not start ${file}: ${error.message}`));
    });
    child.on('exit', (code, exitSignal) => {
      // Background jobs the command left behind still hold the group: end them too.
      escalate();
      // A process that escaped the group (setsid) may keep the pipes open forever: stop waiting.
      closeTimer = setTimeout(() => {
        childOut.destroy();
        childErr.destroy();
        finish(code, exitSignal);
      }, grace + 500);
    });
    child.on('close', (code, exitSignal) => finish(code, exitSignal));
  });
}
