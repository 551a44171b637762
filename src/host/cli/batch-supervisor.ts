// `cadre batch` runs its tasks in a child process that this one watches. A batch host that dies
// from a signal (a native crash in Node, the kernel's OOM killer) is started again on the same
// results file, so it resumes where it stopped: a batch of thousands of tasks never needs a person
// to notice a crash and type the command again. Signals a user sends are passed on, never retried.
import { fork } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import type { CliIO } from './context.js';

/** Set in the child: run the batch here instead of supervising one. */
export const SUPERVISED_ENV = 'CADRE_BATCH_SUPERVISED';
/**
 * Set in a restarted child: the byte offset of the results file when this invocation began. Lines
 * past it were written by this invocation; they count as done whatever `--retry` says, and they
 * are part of the closing summary.
 */
export const SINCE_ENV = 'CADRE_BATCH_SINCE';

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
export const MAX_CRASHES_WITHOUT_PROGRESS = 3;
/** Restarts of one invocation, whatever the progress. */
const MAX_RESTARTS = 100;

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
  let restarts = 0;
  let fruitless = 0;
  for (;;) {
    const before = await sizeOf(outPath);
    const ended = await runChild(options, restarts > 0 ? startSize : undefined);
    if (ended.code !== null) return ended.code;
    const signal = ended.signal ?? 'SIGKILL';
    const number = constants.signals[signal] ?? 9;
    if (ended.forwarded || !CRASH_SIGNALS.has(signal)) return 128 + number;
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

function runChild(
  options: SuperviseOptions,
  since: number | undefined,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; forwarded: boolean }> {
  const env: NodeJS.ProcessEnv = { ...options.env, [SUPERVISED_ENV]: '1' };
  if (since !== undefined) env[SINCE_ENV] = String(since);
  else delete env[SINCE_ENV];
  const child = fork(options.script, [...options.args], {
    env,
    stdio: 'inherit',
    // Its own process group: a terminal's Ctrl-C reaches this process only, which passes it on
    // once, so one Ctrl-C is not counted twice.
    detached: true,
  });
  let forwarded = false;
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
    child.once('exit', (code, signal) => {
      for (const [sig, handler] of handlers) process.off(sig, handler);
      resolve({ code, signal, forwarded });
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
