// A runtime whose agents run in the test-only workers (fault-run.ts): a run whose prompt is
// `fault:<kind>` fails in that way, every other run is the real one. The workers are built from
// source by build-fault-workers.ts (vitest's global setup, and the benchmarks that use faults).
import path from 'node:path';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../../src/host/runtime.js';
import type { WorkerEntries } from '../../../src/host/pool/worker-flags.js';

/** Where the test-only workers are built: beside dist/, never in it (dist/ is what ships). */
export const FAULT_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'dist-test');

/** The test-only workers of both isolation modes. */
export const FAULT_WORKERS: WorkerEntries = {
  thread: path.join(FAULT_DIR, 'fault-thread.cjs'),
  process: path.join(FAULT_DIR, 'fault-process.cjs'),
  readRoots: [FAULT_DIR],
};

/** `createRuntime`, with agents run in the test-only workers. */
export function createFaultRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return startRuntime(options, FAULT_WORKERS);
}
