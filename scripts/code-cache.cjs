// Loads a CommonJS bundle through V8's code cache (copied to dist/code-cache.cjs by
// scripts/bundle.mjs). The cache is specific to one Node version and architecture; where none
// matches, the bundle compiles from source as usual. Used by the worker threads' entry and by the
// `cadre` executable, which each start by compiling a bundle of JavaScript.
//
// CommonJS on purpose, like the worker's entry: a worker thread that loads no ES module never
// starts Node's ES module loader, and built-ins taken through require skip the facades an import
// builds (which read every export, loading file streams for node:fs and WebCrypto for node:crypto).
'use strict';
const { existsSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
// Not require('node:module'): that public module starts the ES module loader.
const { createRequire } = module.constructor;
const path = require('node:path');
const vm = require('node:vm');

/**
 * The cache file beside `file` for this Node version and this build of `file`. V8 checks little
 * more than the source's length before taking a cache, so the name carries the content hash that
 * scripts/bundle.mjs wrote to `<file>.id`: a cache can never be taken for other code. Without an
 * id, or with CADRE_CODE_CACHE=off, there is no cache.
 */
function cacheFileFor(file) {
  if (process.env.CADRE_CODE_CACHE === 'off') return undefined;
  let id;
  try {
    id = readFileSync(`${file}.id`, 'utf8').trim();
  } catch {
    return undefined;
  }
  if (!/^[0-9a-f]{8,64}$/.test(id)) return undefined;
  return file.replace(/\.cjs$/, `-${id}-${process.version}-${process.arch}.cache`);
}

/** The content hash written to `<file>.id`. */
function writeId(file) {
  writeFileSync(
    `${file}.id`,
    `${require('node:crypto').createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 32)}\n`,
  );
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
function loadCached(file) {
  const cacheFile = cacheFileFor(file);
  let cachedData;
  try {
    cachedData = cacheFile ? readFileSync(cacheFile) : undefined;
  } catch {
    cachedData = undefined;
  }
  const script = compile(file, cachedData);
  const exports = run(script, file);
  const codeCache = cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'none';
  return {
    exports,
    codeCache,
    save: () => {
      if (cacheFile) writeAtomically(cacheFile, script.createCachedData());
    },
  };
}

/** True when `file` has a cache for this Node version. */
function hasCache(file) {
  const cacheFile = cacheFileFor(file);
  return cacheFile === undefined || existsSync(cacheFile);
}

/**
 * Writes the cache of `file` for this Node version: compiles and runs its top level (which must
 * only define things), then keeps what V8 compiled. Returns the bundle's exports.
 */
function writeCache(file) {
  const script = compile(file);
  const exports = run(script, file);
  const cacheFile = cacheFileFor(file);
  if (cacheFile) writeAtomically(cacheFile, script.createCachedData());
  return exports;
}

exports.cacheFileFor = cacheFileFor;
exports.writeId = writeId;
exports.loadCached = loadCached;
exports.hasCache = hasCache;
exports.writeCache = writeCache;
