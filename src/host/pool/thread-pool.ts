// The Piscina pool that runs agents: one agent per thread, every run carrying an AbortSignal
// (abort terminates the thread), compiled JS under the permission model, and an `error` listener
// so a late error from an idle worker can never take the host down.
import path from 'node:path';
import type { MessagePort, Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { WorkerRunResult, WorkerRunSpec } from '../../shared/run-spec.js';
import { DIST_DIR, hostHeapSamplingSupported, permissionFlags, workerReadRoots } from './worker-flags.js';

/** What one thread-mode task receives. */
export interface ThreadTask {
  spec: WorkerRunSpec;
  caps: MessagePort;
  control: MessagePort;
  model: MessagePort;
}

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
const YOUNG_GENERATION_MB = 4;

/** A thin owner of the Piscina instance. */
export class ThreadPool {
  readonly piscina: Piscina<ThreadTask, WorkerRunResult>;
  /** The old-generation cap per thread, when set (the heap sampler compares against it). */
  readonly memoryLimitMb: number | undefined;

  constructor(options: ThreadPoolOptions) {
    const memory = options.memoryLimitMb;
    this.memoryLimitMb = memory;
    this.piscina = new Piscina<ThreadTask, WorkerRunResult>({
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
        : // A small young generation (4 MB): V8 grows a thread's young generation to its maximum
          // under steady allocation and never gives it back, so a larger one costs every thread
          // its RSS (16 MB made 16 threads hold 190 MB more after 10,000 batch tasks, for no
          // throughput); and with a small heap cap it lets one burst of allocation overshoot the cap.
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
  }

  /** Runs one agent; the signal terminates its thread. */
  run(task: ThreadTask, signal: AbortSignal): Promise<WorkerRunResult> {
    return this.piscina.run(task, { transferList: [task.caps, task.control, task.model], signal });
  }

  /** The live Worker objects (for host-side heap sampling). */
  threads(): Worker[] {
    return this.piscina.threads;
  }

  /** Closes the pool, terminating threads that are still busy. */
  async close(): Promise<void> {
    await this.piscina.close({ force: true });
  }
}
