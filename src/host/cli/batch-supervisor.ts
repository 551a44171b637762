// `cadre batch` runs its tasks in a child process that this one watches. A batch host that dies
// from a signal (a native crash in Node, the kernel's OOM killer) is started again on the same
// results file, so it resumes where it stopped: a batch of thousands of tasks never needs a person
// to notice a crash and type the command again. Signals a user sends are passed on, never retried.
// The child says which tasks it starts and ends; the tasks running at a death are suspects, which
// the next child runs one at a time, and a task running at two deaths is recorded as `crashed`.
import { fork } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import * as z from 'zod';
import type { CliIO } from './context.js';

/** Set in the child: run the batch here instead of supervising one. */
export const SUPERVISED_ENV = 'CADRE_BATCH_SUPERVISED';
/**
 * Set in a restarted child: the byte offset of the results file when this invocation began. Lines
 * past it were written by this invocation; they count as done whatever `--retry` says, and they
 * are part of the closing summary.
 */
export const SINCE_ENV = 'CADRE_BATCH_SINCE';
/**
 * Set in a restarted child: JSON `{ id: [signal, ...] }`, the tasks that were running each time
 * the batch process died in this invocation (see batch/plan.ts).
 */
const CRASHES_ENV = 'CADRE_BATCH_CRASHES';

/** What a supervised child tells its supervisor about each task. */
export interface TaskNote {
  cadreBatch: 'started' | 'ended';
  id: string;
}

/** In a supervised child: tells the supervisor a task started or ended (a no-op elsewhere). */
export function noteTask(cadreBatch: TaskNote['cadreBatch'], id: string): void {
  const note: TaskNote = { cadreBatch, id };
  if (process.connected) process.send?.(note);
}

/** The crashes a restarted child was given, checked (anything malformed counts as none). */
export function crashesFromEnv(env: NodeJS.ProcessEnv): Record<string, string[]> {
  const parsed = Crashes.safeParse(safeJson(env[CRASHES_ENV] ?? '{}'));
  return parsed.success ? parsed.data : {};
}

const Crashes = z.record(z.string(), z.array(z.string()));

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Deaths that are crashes rather than requests to stop. */
const CRASH_SIGNALS = new Set<NodeJS.Signals>([
  'SIGSEGV',
  'SIGABRT',
  'SIGBUS',
  'SIGILL',
  'SIGFPE',
  'SIGKILL',
]);
/** Signals passed on to the child; it decides what they mean (Ctrl-C twice quits at once). */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Consecutive crashes that finished no task before the supervisor gives up. */
const MAX_CRASHES_WITHOUT_PROGRESS = 3;
/** Restarts of one invocation, whatever the progress. */
const MAX_RESTARTS = 100;

/** How to start the batch process again, and where its progress shows. */
export interface SuperviseOptions {
  /** The `cadre` script and the arguments to run it with again. */
  script: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** The results file (absolute): its growth is how progress is judged. */
  outPath: string;
  io: CliIO;
}

async function sizeOf(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}

/** Runs the batch in a child, restarting it after crashes. Resolves to the exit code to use. */
export async function superviseBatch(options: SuperviseOptions): Promise<number> {
  const { io, outPath } = options;
  const startSize = await sizeOf(outPath);
  const crashes: Record<string, string[]> = {};
  let restarts = 0;
  let fruitless = 0;
  for (;;) {
    const before = await sizeOf(outPath);
    const ended = await runChild(options, restarts > 0 ? { since: startSize, crashes } : undefined);
    if (ended.code !== null) return ended.code;
    const signal = ended.signal ?? 'SIGKILL';
    const number = constants.signals[signal] ?? 9;
    if (ended.forwarded || !CRASH_SIGNALS.has(signal)) return 128 + number;
    for (const id of ended.running) (crashes[id] ??= []).push(signal);
    // More than the newline that repairs a torn last line: at least one result was written.
    fruitless = (await sizeOf(outPath)) - before > 1 ? 0 : fruitless + 1;
    if (fruitless >= MAX_CRASHES_WITHOUT_PROGRESS || restarts >= MAX_RESTARTS) {
      io.stderr(
        `batch: the batch process died (${signal}) ${fruitless >= MAX_CRASHES_WITHOUT_PROGRESS ? `${fruitless} times in a row without finishing a task` : `${restarts + 1} times`}; giving up. ` +
          `Finished results are in ${outPath}; run the same command to resume.\n`,
      );
      return 128 + number;
    }
    restarts++;
    io.stderr(
      `batch: the batch process died (${signal}); resuming from ${outPath} (restart ${restarts}). Tasks that were running start again.\n`,
    );
  }
}

interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  forwarded: boolean;
  /** The tasks the child had started and not ended. */
  running: string[];
}

function runChild(
  options: SuperviseOptions,
  restart: { since: number; crashes: Record<string, string[]> } | undefined,
): Promise<ChildEnd> {
  const env: NodeJS.ProcessEnv = { ...options.env, [SUPERVISED_ENV]: '1' };
  delete env[SINCE_ENV];
  delete env[CRASHES_ENV];
  if (restart !== undefined) {
    env[SINCE_ENV] = String(restart.since);
    env[CRASHES_ENV] = JSON.stringify(restart.crashes);
  }
  const child = fork(options.script, [...options.args], {
    env,
    stdio: 'inherit',
    // Its own process group: a terminal's Ctrl-C reaches this process only, which passes it on
    // once, so one Ctrl-C is not counted twice.
    detached: true,
  });
  let forwarded = false;
  const running = new Set<string>();
  child.on('message', (message: unknown) => {
    const note = message as Partial<TaskNote> | null;
    if (typeof note?.id !== 'string') return;
    if (note.cadreBatch === 'started') running.add(note.id);
    else if (note.cadreBatch === 'ended') running.delete(note.id);
  });
  const handlers = FORWARDED.map((sig) => {
    const handler = () => {
      forwarded = true;
      child.kill(sig);
    };
    process.on(sig, handler);
    return [sig, handler] as const;
  });
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      for (const [sig, handler] of handlers) process.off(sig, handler);
      reject(error);
    });
    // `close`, not `exit`: by then every message the child sent (its last `started`) is in.
    child.once('close', (code, signal) => {
      for (const [sig, handler] of handlers) process.off(sig, handler);
      resolve({ code, signal, forwarded, running: [...running] });
    });
  });
}

/**
 * In the child: ends the process when the supervisor is gone (killed with SIGKILL, say), so an
 * orphaned batch never keeps appending to a results file that a re-run is reading.
 */
export function exitWithSupervisor(): void {
  // Gone already (killed while this process was starting): stop before running anything.
  if (!process.connected) process.exit(137);
  process.on('disconnect', () => process.exit(137));
  // The channel only watches the supervisor; it must not keep a finished batch alive.
  process.channel?.unref();
}
