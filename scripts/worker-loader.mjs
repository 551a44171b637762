// The worker thread's entry (copied to dist/worker-bundle/entry.mjs by scripts/bundle.mjs). It
// compiles the bundled worker (worker.cjs) with V8's code cache for this Node version when one was
// built, which roughly halves a cold thread's start-up; without one it compiles from source.
// It reads only cadre's own files in dist/, which the workers' permission flags allow.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dir = path.dirname(fileURLToPath(import.meta.url));
const file = path.join(dir, 'worker.cjs');
let cachedData;
try {
  cachedData = readFileSync(path.join(dir, `worker-${process.version}-${process.arch}.cache`));
} catch {
  cachedData = undefined;
}
const script = new vm.Script(
  `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`,
  {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  },
);
const module = { exports: {} };
script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dir);

/** Whether V8 took the code cache: `used`, `rejected` (another V8 or flags) or `none`. */
export const codeCache = cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'none';
export default module.exports.default;
