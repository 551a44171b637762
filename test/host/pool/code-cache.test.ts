// The worker bundle and the CLI start from V8's code cache: `npm run build` writes one for the Node
// version it runs on, and a worker started as the pool starts them (permission flags included),
// like a fresh CLI process, takes it.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { access, copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { DIST_DIR, permissionFlags } from '../../../src/host/pool/worker-flags.js';
import { WORKER_ENTRY } from '../../../src/host/pool/thread-pool.js';

// The build scripts' loader: plain CommonJS, without types.
const { cacheFileFor, loadCached, writeCache, writeId } = createRequire(import.meta.url)(
  '../../../scripts/code-cache.cjs',
) as {
  cacheFileFor(file: string): string | undefined;
  loadCached(file: string): { codeCache: string; exports: Record<string, unknown> };
  writeCache(file: string): Record<string, unknown>;
  writeId(file: string): void;
};

const load = (execArgv: string[]) =>
  new Promise<[string, string, boolean]>((resolve, reject) => {
    const w = new Worker(
      `const m = require(${JSON.stringify(WORKER_ENTRY)}); require('node:worker_threads').parentPort.postMessage([m.codeCache, typeof m.default, process.moduleLoadList.some((n) => n.includes('esm/loader'))])`,
      { eval: true, execArgv },
    );
    w.once('message', (m: [string, string, boolean]) => void w.terminate().then(() => resolve(m)));
    w.once('error', reject);
  });

describe('the worker code cache', () => {
  it('is built for this Node version and taken by a worker under the permission flags', async () => {
    const bundle = path.join(DIST_DIR, 'worker-bundle', 'worker.cjs');
    const id = (await readFile(`${bundle}.id`, 'utf8')).trim();
    await expect(
      access(path.join(DIST_DIR, 'worker-bundle', `worker-${id}-${process.version}-${process.arch}.cache`)),
    ).resolves.toBeUndefined();
    // Taken, and the entry is CommonJS all the way: the thread never starts the ES module loader.
    expect(await load(permissionFlags())).toEqual(['used', 'function', false]);
  });

  it('is built for the CLI too, and taken by a fresh process', () => {
    const loader = path.join(DIST_DIR, 'code-cache.cjs');
    const bundle = path.join(DIST_DIR, 'host', 'cli', 'cadre.cjs');
    const state = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(loader)}); const r = m.loadCached(${JSON.stringify(bundle)}); console.log(r.codeCache, typeof r.exports.main);`,
      ],
      { encoding: 'utf8' },
    );
    expect(state.trim()).toBe('used function');
  });

  it('is trained on runs: the worker and the CLI caches hold more than their top levels compile', async () => {
    // Inside dist/, where the CLI bundle's external imports (piscina) resolve.
    const dir = await mkdtemp(path.join(DIST_DIR, 'cache-test-'));
    try {
      for (const bundle of [
        path.join(DIST_DIR, 'worker-bundle', 'worker.cjs'),
        path.join(DIST_DIR, 'host', 'cli', 'cadre.cjs'),
      ]) {
        const trained = (await stat(cacheFileFor(bundle)!)).size;
        // The same bundle's cache made from its top level alone, as builds used to make it.
        const copy = path.join(dir, path.basename(bundle));
        await copyFile(bundle, copy);
        await copyFile(`${bundle}.id`, `${copy}.id`);
        writeCache(copy);
        const topLevel = (await stat(cacheFileFor(copy)!)).size;
        expect(trained).toBeGreaterThan(topLevel * 1.2);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is never taken for other code: a rebuild changes its name, and CADRE_CODE_CACHE=off skips it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-cc-'));
    try {
      const file = path.join(dir, 'b.cjs');
      await writeFile(file, 'module.exports.v = "AAAA";');
      writeId(file);
      writeCache(file);
      expect(loadCached(file)).toMatchObject({ codeCache: 'used', exports: { v: 'AAAA' } });
      // Same length, other code: V8 alone would take the old cache.
      await writeFile(file, 'module.exports.v = "BBBB";');
      writeId(file);
      expect(loadCached(file)).toMatchObject({ codeCache: 'none', exports: { v: 'BBBB' } });
      writeCache(file);
      process.env.CADRE_CODE_CACHE = 'off';
      expect(loadCached(file)).toMatchObject({ codeCache: 'none', exports: { v: 'BBBB' } });
    } finally {
      delete process.env.CADRE_CODE_CACHE;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
