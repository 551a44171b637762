// The Piscina task function of thread mode: wiring only.
import type { MessagePort } from 'node:worker_threads';
import { threadId } from 'node:worker_threads';
import { portEndpoint } from '../shared/endpoint.js';
import type { WorkerRunResult, WorkerRunSpec } from '../shared/run-spec.js';
import { runWorker } from './run.js';

/** Runs one agent on this thread. */
export default async function task(input: {
  spec: WorkerRunSpec;
  caps: MessagePort;
  control: MessagePort;
  model: MessagePort;
}): Promise<WorkerRunResult> {
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
