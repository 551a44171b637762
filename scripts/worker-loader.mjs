// The worker thread's entry (copied to dist/worker-bundle/entry.mjs by scripts/bundle.mjs): the
// bundled worker (worker.cjs), compiled through V8's code cache, which roughly halves a cold
// thread's start-up. It reads only cadre's own files in dist/, which the permission flags allow.
import { loadBeside } from '../code-cache.mjs';

const loaded = loadBeside(import.meta.url, 'worker.cjs');

/** Whether V8 took the code cache: `used`, `rejected` or `none`. */
export const codeCache = loaded.codeCache;
export default loaded.exports.default;
