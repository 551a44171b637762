// The host's I/O thread: answers batch reads with synchronous calls, so thousands of small files
// cost microseconds each without blocking the host's event loop (which keeps deadlines, kills and
// approvals on time). It is host code with the host's rights; agent workers never reach it.
import { parentPort } from 'node:worker_threads';
import { readBatchSync } from './read-batch-sync.js';

/** A request from the host. */
export interface IoRequest {
  id: number;
  reals: string[];
  maxBytes: number;
  budget: number;
}

parentPort?.on('message', (request: IoRequest) => {
  parentPort?.postMessage({
    id: request.id,
    outcomes: readBatchSync(request.reals, request.maxBytes, request.budget),
  });
});
