#!/usr/bin/env node
// The `cadre` executable (copied to dist/host/cli/cadre.mjs by scripts/bundle.mjs): the bundled CLI
// (cadre.cjs), compiled through V8's code cache, then run. A build makes the caches for the Node
// version that ran it; on another version, the first run makes them for the next ones.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const { hasCache, loadCached, writeCache } = createRequire(import.meta.url)('../../code-cache.cjs');
const cli = loadCached(path.join(here, 'cadre.cjs'));
// The bundle runs as a compiled script, where import() has no loader: it loads ES modules (the
// chat's UI) through this module's own import().
await cli.exports.main({ importModule: (specifier) => import(specifier) });
if (cli.codeCache !== 'used') {
  try {
    cli.save();
    const worker = path.join(here, '..', '..', 'worker-bundle', 'worker.cjs');
    if (!hasCache(worker)) writeCache(worker);
  } catch {
    // A read-only installation: every run compiles from source, as without a cache.
  }
}
