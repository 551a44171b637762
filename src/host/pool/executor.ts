// How a run's worker is started, in either isolation mode. The controller sees one shape: the host
// ends of the capability and control channels, a promise of the worker's result, a heap probe and
// a kill. Thread mode uses the Piscina pool; process mode a child process per run.
import { fork } from 'node:child_process';
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { channelEndpoint, portEndpoint, type Endpoint } from '../../shared/endpoint.js';
import type { WorkerRunResult, WorkerRunSpec } from '../../shared/run-spec.js';
import type { ThreadPool } from './thread-pool.js';
import { DIST_DIR, hostHeapSamplingSupported, permissionFlags, workerReadRoots } from './worker-flags.js';

/** A started run's worker, as the controller drives it. */
interface Launched {
  caps: Endpoint;
  control: Endpoint;
  /** The model channel: the worker's model HTTP requests (see capabilities/model-http.ts). */
  model: Endpoint;
  done: Promise<WorkerRunResult>;
  /** Used and limit heap bytes, where the platform can sample a worker from outside. */
  heap(): { used: number; limit: number } | undefined;
  /**
   * Messages the worker posted on its capability port that have not been handled yet, taken
   * synchronously. A thread's result comes back on Piscina's own port, which the host may serve
   * before the run's port: the events the worker sent just before it returned would otherwise be
   * lost when the run closes its port. (Process mode needs none: one IPC channel keeps the order.)
   */
  takePending(): unknown[];
  /** Releases channels after the run. */
  dispose(): void;
}

/** Starts workers. `signal` aborting means: terminate now. */
export interface Executor {
  readonly mode: 'thread' | 'process';
  launch(spec: WorkerRunSpec, signal: AbortSignal): Launched;
  /**
   * Keeps `count` workers started ahead for the subagents of run `source` (0 withdraws the want);
   * a launch whose spec names `source` as its parent takes one. Absent where starting ahead does
   * not apply.
   */
  prestart?(source: string, count: number): void;
}

/**
 * Piscina rejects a run whose thread exited with this message and no code; it gets the code the
 * process executor gives the same end, so the end is classified by code alone.
 */
function codedExit(error: unknown): unknown {
  if (error instanceof Error && !('code' in error) && /^worker exited with code: -?\d+$/.test(error.message))
    return Object.assign(error, { code: 'ERR_WORKER_EXIT' });
  return error;
}

/** Runs each agent in a Piscina thread. */
export function threadExecutor(pool: ThreadPool): Executor {
  return {
    mode: 'thread',
    launch(spec, signal) {
      const caps = new MessageChannel();
      const control = new MessageChannel();
      const model = new MessageChannel();
      let worker: Worker | undefined;
      const hostControl = portEndpoint(control.port1);
      // The worker says which thread it is on, so the host can sample that thread's heap.
      const hello = (event: { data: unknown }) => {
        const data = event.data as { type?: string; threadId?: number } | null;
        if (data?.type === 'hello') worker = pool.threads().find((w) => w.threadId === data.threadId);
      };
      hostControl.addEventListener('message', hello);
      const done = pool
        .run({ spec, caps: caps.port2, control: control.port2, model: model.port2 }, signal, spec.parentId)
        .catch((error: unknown) => {
          throw codedExit(error);
        });
      return {
        caps: portEndpoint(caps.port1),
        control: hostControl,
        model: portEndpoint(model.port1),
        done,
        heap: () => sampleThread(worker, pool.memoryLimitMb),
        takePending: () => takeQueued(caps.port1),
        dispose: () => {
          hostControl.removeEventListener('message', hello);
          caps.port1.close();
          control.port1.close();
          model.port1.close();
        },
      };
    },
    prestart: (source, count) => pool.prestart(source, count),
  };
}

/** At most this many messages, and this long, are taken from a port after its run ended. */
export const TAKE_PENDING_LIMIT = { messages: 10_000, ms: 20 };

/**
 * What is queued on `port`, taken synchronously, within TAKE_PENDING_LIMIT: a worker that keeps
 * posting after its result (or while it is killed) cannot hold the host's event loop in this loop.
 * What is left is dropped with the port.
 */
export function takeQueued(port: MessagePort): unknown[] {
  const taken: unknown[] = [];
  const until = performance.now() + TAKE_PENDING_LIMIT.ms;
  while (taken.length < TAKE_PENDING_LIMIT.messages) {
    if (taken.length % 256 === 255 && performance.now() > until) break;
    const next = receiveMessageOnPort(port);
    if (!next) break;
    taken.push(next.message);
  }
  return taken;
}

/** The last heap sample taken of each thread, kept only while the thread lives. */
const lastSample = new WeakMap<Worker, { used: number; limit: number }>();

/**
 * The last heap sample of a thread. The limit is the configured cap, not V8's heap_size_limit,
 * which also counts the young generation and reads several times larger than the cap.
 */
function sampleThread(
  worker: Worker | undefined,
  capMb: number | undefined,
): { used: number; limit: number } | undefined {
  if (!worker || !hostHeapSamplingSupported()) return undefined;
  const w = worker as unknown as {
    getHeapStatistics?: () => Promise<{ used_heap_size: number; heap_size_limit: number }>;
  };
  if (typeof w.getHeapStatistics !== 'function') return undefined;
  // getHeapStatistics is asynchronous: report the previous sample and request the next one.
  w.getHeapStatistics()
    .then((s) =>
      lastSample.set(worker, {
        used: s.used_heap_size,
        limit: capMb === undefined ? s.heap_size_limit : capMb * 1048576,
      }),
    )
    .catch(() => undefined);
  return lastSample.get(worker);
}

/** Options of process isolation. */
export interface ProcessExecutorOptions {
  memoryLimitMb: number;
  permission?: boolean;
  /** Override the entry file (cadre's own tests). */
  filename?: string;
  /** Extra directories the worker may read (only for an overridden entry file). */
  extraReadRoots?: string[];
}

/** The bundled entry of process isolation mode. */
const PROCESS_ENTRY = path.join(DIST_DIR, 'worker-bundle', 'process-entry.cjs');

/** Runs each agent in its own child process with a hard V8 heap cap. */
export function processExecutor(options: ProcessExecutorOptions): Executor {
  return {
    mode: 'process',
    launch(spec, signal) {
      if (signal.aborted) {
        const done = Promise.reject(signal.reason as Error);
        done.catch(() => undefined);
        const idle = channelEndpoint({ on: () => undefined, off: () => undefined }, () => undefined);
        return {
          caps: idle,
          control: idle,
          model: idle,
          done,
          heap: () => undefined,
          takePending: () => [],
          dispose: () => undefined,
        };
      }
      const child = fork(options.filename ?? PROCESS_ENTRY, [], {
        execArgv: [
          `--max-old-space-size=${options.memoryLimitMb}`,
          ...(options.permission === false
            ? []
            : permissionFlags([...workerReadRoots(), ...(options.extraReadRoots ?? [])])),
        ],
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        env: {},
      });
      let stderr = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        if (stderr.length < 64_000) stderr += chunk;
      });
      const send = (message: unknown) => {
        if (child.connected) child.send(message as never, () => undefined);
      };
      const kill = () => child.kill('SIGKILL');
      signal.addEventListener('abort', kill, { once: true });
      const done = new Promise<WorkerRunResult>((resolve, reject) => {
        child.on('message', (data: unknown) => {
          const tagged = data as { ch?: string; m?: unknown };
          if (tagged?.ch === 'result') resolve(tagged.m as WorkerRunResult);
          if (tagged?.ch === 'error')
            reject(
              Object.assign(new Error(String((tagged.m as { message?: string })?.message)), {
                code: 'ERR_WORKER_ERROR',
              }),
            );
        });
        child.on('exit', (code, sig) => {
          signal.removeEventListener('abort', kill);
          if (signal.aborted) return reject(signal.reason as Error);
          const oom = /heap out of memory|Reached heap limit|allocation failed/i.test(stderr);
          const error = new Error(
            oom
              ? `worker process ran out of memory (--max-old-space-size=${options.memoryLimitMb})`
              : `worker process exited with ${sig ? `signal ${sig}` : `code ${String(code)}`}`,
          );
          reject(Object.assign(error, { code: oom ? 'ERR_WORKER_OUT_OF_MEMORY' : 'ERR_WORKER_EXIT' }));
        });
        child.on('error', reject);
      });
      send({ ch: 'start', m: spec });
      return {
        caps: channelEndpoint(child, send, 'caps'),
        control: channelEndpoint(child, send, 'control'),
        model: channelEndpoint(child, send, 'model'),
        done,
        heap: () => undefined,
        takePending: () => [],
        dispose: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        },
      };
    },
  };
}
