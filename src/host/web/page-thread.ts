// The page thread: converts fetched pages to text (page-text.ts) off the host's event loop. The
// host starts it on the first WebFetch and terminates it when a conversion overruns its time
// (page-pool.ts), so a hostile page costs at most that time and never blocks deadlines, kills or
// approvals. It holds no capability and touches no file.
import { parentPort } from 'node:worker_threads';
import { pageText, type PageInput, type PageText } from './page-text.js';

/** A request: a page to convert. */
export interface PageRequest extends PageInput {
  id: number;
}

/** The answer: the text, or why the page cannot be shown. */
export type PageAnswer =
  { id: number; ok: true; value: PageText } | { id: number; ok: false; message: string };

// Loaded (and its code cached) by the build on the main thread, where there is no parent port.
parentPort?.on('message', (request: PageRequest) => {
  let answer: PageAnswer;
  try {
    answer = { id: request.id, ok: true, value: pageText(request) };
  } catch (error) {
    answer = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
