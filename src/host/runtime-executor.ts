// Where a runtime's runs execute: a pool of worker threads sized so waiting parents can never
// deadlock it, or one child process per run (isolation: 'process').
import type { CadreConfig } from './config.js';
import { processExecutor, threadExecutor, type Executor } from './pool/executor.js';
import { ThreadPool } from './pool/thread-pool.js';
import type { WorkerEntries } from './pool/worker-flags.js';

/** A runtime's executor, and its thread pool in thread mode (for stats and close). */
export interface RuntimeExecutor {
  executor: Executor;
  pool: ThreadPool | undefined;
}

/**
 * Starts the executor `config` asks for; its warm thread loads while the caller goes on. `workers`
 * replaces the package's worker bundles (cadre's own tests only: see startRuntime).
 */
export function startExecutor(
  config: CadreConfig,
  threadIdleTimeoutMs: number | undefined,
  workers?: WorkerEntries,
): RuntimeExecutor {
  const concurrency = Math.max(1, config.concurrency);
  const memoryLimitMb = config.memoryLimitMb ?? 512;
  const entries = workers ? { extraReadRoots: [...workers.readRoots] } : {};
  if (config.isolation === 'process') {
    const filename = workers ? { filename: workers.process } : {};
    return { executor: processExecutor({ memoryLimitMb, ...entries, ...filename }), pool: undefined };
  }
  const pool = new ThreadPool({
    // Active runs hold scheduler slots (at most `concurrency`); a parent waiting on its children
    // lends its slot but keeps its thread. Serving the deepest waiters first keeps the waiting
    // parents at each depth to at most `concurrency`, so this many threads can never deadlock.
    maxThreads: concurrency * (config.maxDepth + 1),
    // One warm thread: more would compete for the CPU with the first run's start.
    minThreads: 1,
    memoryLimitMb,
    ...entries,
    ...(workers ? { filename: workers.thread } : {}),
    ...(threadIdleTimeoutMs ? { idleTimeoutMs: threadIdleTimeoutMs } : {}),
  });
  return { executor: threadExecutor(pool), pool };
}
