// The run function of the test-only workers: the real `runWorker`, unless the run's first message
// asks for a fault (`fault:<kind>`), which then happens where the real run would have started.
import { runWorker } from '../../../src/worker/run.js';
import type { RunWorker } from '../../../src/worker/thread-task.js';
import { faultOf, injectFault } from './inject-fault.js';

/** `runWorker`, failing on purpose for a `fault:<kind>` prompt. */
export const faultyRunWorker: RunWorker = async (spec, caps, control, model) => {
  const fault = faultOf(spec.prompt);
  if (fault !== undefined) await injectFault(fault);
  return runWorker(spec, caps, control, model);
};
