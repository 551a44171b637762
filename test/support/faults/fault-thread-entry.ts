// The Piscina task function of the test-only thread worker: the shipped one's, with faults.
import { threadId, type MessagePort } from 'node:worker_threads';
import { threadTask } from '../../../src/worker/thread-task.js';
import { faultyRunWorker } from './fault-run.js';

/** Runs one agent (or its fault) on this thread, or parks until the host hands it one. */
export default threadTask<MessagePort>(faultyRunWorker, threadId);
