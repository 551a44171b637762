// The entry of process isolation mode: one child process per run. Wiring only (process-task.ts).
import { serveProcessRun } from './process-task.js';
import { runWorker } from './run.js';

serveProcessRun(runWorker);
