// Loads a CommonJS bundle through V8's code cache (copied to dist/code-cache.mjs by
// scripts/bundle.mjs). The cache is specific to one Node version and architecture; where none
// matches, the bundle compiles from source as usual. Used by the worker threads' entry and by the
// `cadre` executable, which each start by compiling about two megabytes of JavaScript.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** The cache file beside `file` for this Node version. */
export function cacheFileFor(file) {
  return file.replace(/\.cjs$/, `-${process.version}-${process.arch}.cache`);
}

function compile(file, cachedData) {
  // The same wrapper text at build and at load: V8 takes a cache only for identical source.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`;
  return new vm.Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
}

function run(script, file) {
  const module = { exports: {} };
  script
    .runInThisContext()
    .call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return module.exports;
}

/** Writes `data` to `target` through a temporary file, so a reader never sees half a cache. */
function writeAtomically(target, data) {
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, target);
}

/**
 * Runs the CommonJS bundle `file` and returns its exports, with `codeCache`: `used`, `rejected`
 * (another V8 or other flags) or `none`, and `save()`, which writes a cache of everything compiled
 * so far for this Node version (it throws where dist/ is read-only).
 */
export function loadCached(file) {
  let cachedData;
  try {
    cachedData = readFileSync(cacheFileFor(file));
  } catch {
    cachedData = undefined;
  }
  const script = compile(file, cachedData);
  const exports = run(script, file);
  const codeCache = cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'none';
  return { exports, codeCache, save: () => writeAtomically(cacheFileFor(file), script.createCachedData()) };
}

/** True when `file` has a cache for this Node version. */
export function hasCache(file) {
  return existsSync(cacheFileFor(file));
}

/**
 * Writes the cache of `file` for this Node version: compiles and runs its top level (which must
 * only define things), then keeps what V8 compiled. Returns the bundle's exports.
 */
export function writeCache(file) {
  const script = compile(file);
  const exports = run(script, file);
  writeAtomically(cacheFileFor(file), script.createCachedData());
  return exports;
}
