// The Piscina task function of thread mode: wiring only. A task is either one run, or a park: the
// thread was started ahead of need and waits for the one run the host will give it (park.ts).
import type { MessagePort } from 'node:worker_threads';
import { threadId } from 'node:worker_threads';
import { portEndpoint } from '../shared/endpoint.js';
import type { ParkTask, ThreadTask } from '../shared/park.js';
import type { WorkerRunResult } from '../shared/run-spec.js';
import { awaitOrder } from './park.js';
import { runWorker } from './run.js';

/** Runs one agent on this thread, or parks until the host hands it one (null: released unused). */
export default async function task(
  input: ThreadTask<MessagePort> | ParkTask<MessagePort>,
): Promise<WorkerRunResult | null> {
  if (!('park' in input)) return runOne(input);
  const order = await awaitOrder<MessagePort>(portEndpoint(input.park));
  input.park.close();
  return order.type === 'run' ? runOne(order.task) : null;
}

async function runOne(input: ThreadTask<MessagePort>): Promise<WorkerRunResult> {
  const control = portEndpoint(input.control);
  control.postMessage({ type: 'hello', threadId });
  try {
    return await runWorker(input.spec, portEndpoint(input.caps), control, portEndpoint(input.model));
  } finally {
    input.caps.close();
    input.control.close();
    input.model.close();
  }
}
