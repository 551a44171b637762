// The Piscina pool that runs agents: one agent per thread, every run carrying an AbortSignal
// (abort terminates the thread), compiled JS under the permission model, and an `error` listener
// so a late error from an idle worker can never take the host down. Threads can be started ahead
// of need (parked-threads.ts): a run takes a parked thread before the pool starts a new one.
import os from 'node:os';
import path from 'node:path';
import type { MessagePort, Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ParkTask, ThreadTask as ThreadTaskOf } from '../../shared/park.js';
import type { WorkerRunResult } from '../../shared/run-spec.js';
import { ParkedThreads } from './parked-threads.js';
import { DIST_DIR, hostHeapSamplingSupported, permissionFlags, workerReadRoots } from './worker-flags.js';

/** What one thread-mode run receives. */
export type ThreadTask = ThreadTaskOf<MessagePort>;

/** Pool sizing and worker limits. */
export interface ThreadPoolOptions {
  /** Threads that may exist at once (the scheduler bounds active runs separately). */
  maxThreads: number;
  /** Warm threads kept ready. */
  minThreads?: number;
  idleTimeoutMs?: number;
  /** V8 old-generation cap per thread, in MB. */
  memoryLimitMb?: number;
  /** Run workers under the Node permission model (default true). */
  permission?: boolean;
  /** Override the worker file (tests of the pool itself). */
  filename?: string;
  /** Extra directories the worker may read (only for an overridden worker file). */
  extraReadRoots?: string[];
  /** Receives errors Piscina reports outside any task. */
  onError?: (error: unknown) => void;
}

/** The default worker entry: the compiled worker bundled into one file, so a new thread loads in a fraction of the time. */
export const WORKER_ENTRY = path.join(DIST_DIR, 'worker-bundle', 'entry.cjs');

/** The environment of a worker thread: only the switches cadre's own loader reads. */
function workerEnv(): Record<string, string> {
  const code = process.env.CADRE_CODE_CACHE;
  return code === undefined ? {} : { CADRE_CODE_CACHE: code };
}

/** Each thread's young generation, in MB (see the pool's resourceLimits). */
const YOUNG_GENERATION_MB = 2;

/** A thin owner of the Piscina instance. */
export class ThreadPool {
  readonly piscina: Piscina<ThreadTask | ParkTask<MessagePort>, WorkerRunResult | null>;
  /** The old-generation cap per thread, when set (the heap sampler compares against it). */
  readonly memoryLimitMb: number | undefined;
  private readonly parked: ParkedThreads;

  constructor(options: ThreadPoolOptions) {
    const memory = options.memoryLimitMb;
    this.memoryLimitMb = memory;
    this.piscina = new Piscina<ThreadTask | ParkTask<MessagePort>, WorkerRunResult | null>({
      filename: options.filename ?? WORKER_ENTRY,
      maxThreads: Math.max(1, options.maxThreads),
      minThreads: Math.min(options.minThreads ?? 1, Math.max(1, options.maxThreads)),
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      atomics: 'disabled',
      // Threads get an environment of their own, not a copy of the host's: API keys and whatever
      // else the user's shell holds stay out of reach of worker code.
      env: workerEnv(),
      concurrentTasksPerWorker: 1,
      maxQueue: 'auto',
      execArgv:
        options.permission === false
          ? []
          : permissionFlags([...workerReadRoots(), ...(options.extraReadRoots ?? [])]),
      ...(memory === undefined
        ? {}
        : // A small young generation (2 MB; asking for less gives the same): V8 grows a thread's
          // young generation to its maximum under steady allocation and never gives it back, so a
          // larger one costs every thread its RSS (16 MB made 16 threads hold 190 MB more after
          // 10,000 batch tasks for no throughput; 4 MB cost 1.7 MB per thread of a fresh fan-out
          // against 2 MB); and with a small heap cap it lets one burst of allocation overshoot it.
          // Where the host samples thread heaps (and kills at 90% of the cap), V8's own limit is a
          // backstop at twice the cap: a Map or array that doubles its storage in one step would
          // otherwise cross V8's limit between two samples, and V8 aborts the whole process.
          {
            resourceLimits: {
              maxOldGenerationSizeMb: hostHeapSamplingSupported() ? memory * 2 : memory,
              maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
            },
          }),
    });
    this.piscina.on('error', (error: unknown) => options.onError?.(error));
    const piscina = this.piscina;
    this.parked = new ParkedThreads(
      (task, signal) => piscina.run(task, { transferList: [task.park], signal }),
      {
        // One thread loading per core: more would only share the cores and all be ready late.
        parallel: Math.max(1, os.availableParallelism()),
        room: () => piscina.maxThreads - piscina.threads.length + piscina.idleThreads,
        idle: () => piscina.idleThreads,
      },
    );
  }

  /**
   * Runs one agent on a parked thread if there is one, else on a pool thread; the signal terminates
   * its thread. `parent` is the agent id of the run that started it (whose parked threads it uses).
   */
  async run(task: ThreadTask, signal: AbortSignal, parent?: string): Promise<WorkerRunResult> {
    const parked = this.parked.claim(task, signal, parent);
    if (parked) return parked;
    const result = await this.piscina.run(task, {
      transferList: [task.caps, task.control, task.model],
      signal,
    });
    if (result === null) throw new Error('the worker thread ended its run without a result');
    return result;
  }

  /** Keeps `count` threads started ahead for `source`'s subagents (0 withdraws the want). */
  prestart(source: string, count: number): void {
    this.parked.want(source, count);
  }

  /** Threads started ahead and not yet given a run: loaded and waiting, or still loading. */
  get parkedThreads(): { ready: number; loading: number } {
    return this.parked.counts;
  }

  /** The live Worker objects (for host-side heap sampling). */
  threads(): Worker[] {
    return this.piscina.threads;
  }

  /** Closes the pool, terminating threads that are still busy. */
  async close(): Promise<void> {
    this.parked.close();
    await this.piscina.close({ force: true });
  }
}
