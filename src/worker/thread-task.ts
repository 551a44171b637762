// The Piscina task function of thread mode, over the function that runs one agent: a task is either
// one run, or a park (the thread was started ahead of need and waits for the one run the host will
// give it, park.ts). The run function is a parameter so that cadre's own tests can build a worker
// of their own around the real one; the shipped entry passes `runWorker`. Ports are generic: only
// the entry imports node:worker_threads.
import { portEndpoint, type NodeMessageSource } from '../shared/endpoint.js';
import type { ParkTask, ThreadTask } from '../shared/park.js';
import type { WorkerRunResult } from '../shared/run-spec.js';
import { awaitOrder } from './park.js';
import type { runWorker } from './run.js';

/** What runs one agent: `runWorker`'s shape. */
export type RunWorker = typeof runWorker;

/** A MessagePort as this code uses it. */
interface Port extends NodeMessageSource {
  postMessage(message: unknown): void;
  close(): void;
}

/**
 * The task function of a thread whose runs are made by `run`: one agent run, or a park until the
 * host hands it one (null: released unused). `threadId` is said to the host in the run's hello.
 */
export function threadTask<P extends Port>(
  run: RunWorker,
  threadId: number,
): (input: ThreadTask<P> | ParkTask<P>) => Promise<WorkerRunResult | null> {
  const runOne = async (input: ThreadTask<P>): Promise<WorkerRunResult> => {
    const control = portEndpoint(input.control);
    control.postMessage({ type: 'hello', threadId });
    try {
      return await run(input.spec, portEndpoint(input.caps), control, portEndpoint(input.model));
    } finally {
      input.caps.close();
      input.control.close();
      input.model.close();
    }
  };
  return async (input) => {
    if (!('park' in input)) return runOne(input);
    const order = await awaitOrder<P>(portEndpoint(input.park));
    input.park.close();
    return order.type === 'run' ? runOne(order.task) : null;
  };
}
