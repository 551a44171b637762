// The Piscina task function of thread mode: wiring only (thread-task.ts).
import { threadId, type MessagePort } from 'node:worker_threads';
import { runWorker } from './run.js';
import { threadTask } from './thread-task.js';

/** Runs one agent on this thread, or parks until the host hands it one (null: released unused). */
export default threadTask<MessagePort>(runWorker, threadId);
