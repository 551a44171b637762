// The entry of the host's I/O threads (copied to dist/host-bundle/io-entry.cjs by
// scripts/bundle.mjs): the bundled I/O thread (io-thread.cjs), compiled through V8's code cache.
// Unbundled, a thread loaded some forty ES modules and zod from source: about 110 ms of CPU and
// 20 MB per thread, paid by the first Grep or Glob of every process.
'use strict';
const path = require('node:path');
const { loadCached } = require('../code-cache.cjs');

loadCached(path.join(__dirname, 'io-thread.cjs'));
