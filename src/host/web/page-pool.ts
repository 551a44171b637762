// The host's end of the page thread: started on the first WebFetch (most runs never fetch, and the
// converter costs every thread that loads it), one conversion at a time, each bounded in time. A
// conversion that overruns is ended by terminating the thread (the next request starts a new
// one): terminate() stops even a converter stuck in a loop.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CadreError } from '../../shared/errors.js';
import { DIST_DIR } from '../pool/worker-flags.js';
import type { PageInput, PageText } from './page-text.js';
import type { PageAnswer } from './page-thread.js';

/** The page thread's bundle (scripts/bundle.mjs). */
const PAGE_THREAD = path.join(DIST_DIR, 'host-bundle', 'page-thread.cjs');
/** Longest one conversion may take. */
const PAGE_CONVERT_TIMEOUT_MS = 10_000;
/** Heap the converter may use: a DOM of a few MB of HTML fits many times over. */
const PAGE_HEAP_MB = 512;

let thread: Worker | undefined;
let nextId = 0;
let queue: Promise<unknown> = Promise.resolve();

/** Converts one page on the page thread; conversions wait for each other. */
export function convertPage(input: PageInput, timeoutMs = PAGE_CONVERT_TIMEOUT_MS): Promise<PageText> {
  const run = queue.then(() => convertNow(input, timeoutMs));
  queue = run.catch(() => undefined);
  return run;
}

function convertNow(input: PageInput, timeoutMs: number): Promise<PageText> {
  const worker = (thread ??= startThread());
  const id = nextId++;
  return new Promise<PageText>((resolve, reject) => {
    const stop = (error: CadreError) => {
      cleanup();
      if (thread === worker) thread = undefined;
      void worker.terminate();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        stop(
          new CadreError('timeout', `the page could not be converted to text within ${timeoutMs / 1000} s`),
        ),
      timeoutMs,
    );
    const onMessage = (answer: PageAnswer) => {
      if (answer.id !== id) return;
      cleanup();
      if (answer.ok) resolve(answer.value);
      else reject(new CadreError('invalid_input', answer.message));
    };
    const onExit = () =>
      stop(new CadreError('io_error', 'the page thread stopped while converting the page'));
    const cleanup = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      worker.off('error', onExit);
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    worker.on('error', onExit);
    worker.postMessage({ ...input, id });
  });
}

function startThread(): Worker {
  const worker = new Worker(PAGE_THREAD, { resourceLimits: { maxOldGenerationSizeMb: PAGE_HEAP_MB } });
  // An idle page thread must not keep the process alive, and a late error must not crash the host.
  worker.unref();
  worker.on('error', () => {
    if (thread === worker) thread = undefined;
  });
  return worker;
}
