// The worker thread's entry (copied to dist/worker-bundle/entry.cjs by scripts/bundle.mjs): the
// bundled worker (worker.cjs), compiled through V8's code cache, which roughly halves a cold
// thread's start-up. It reads only cadre's own files in dist/, which the permission flags allow.
// CommonJS, so that Piscina requires it and the thread never starts the ES module loader.
'use strict';
const path = require('node:path');
const { loadCached } = require('../code-cache.cjs');

const loaded = loadCached(path.join(__dirname, 'worker.cjs'));

// Marked as a compiled ES module, so Piscina takes `default` as the task function.
Object.defineProperty(exports, '__esModule', { value: true });

/** Whether V8 took the code cache: `used`, `rejected` or `none`. */
exports.codeCache = loaded.codeCache;
/** The Piscina task function. */
exports.default = loaded.exports.default;
