// The test-only entry of process isolation mode: the shipped one's, with faults.
import { serveProcessRun } from '../../../src/worker/process-task.js';
import { faultyRunWorker } from './fault-run.js';

serveProcessRun(faultyRunWorker);
