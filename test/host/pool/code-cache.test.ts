// The worker bundle and the CLI start from V8's code cache: `npm run build` writes one for the Node
// version it runs on, and a worker started as the pool starts them (permission flags included),
// like a fresh CLI process, takes it.
import { execFileSync } from 'node:child_process';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { DIST_DIR, permissionFlags } from '../../../src/host/pool/worker-flags.js';
import { WORKER_ENTRY } from '../../../src/host/pool/thread-pool.js';

const load = (execArgv: string[]) =>
  new Promise<[string, string]>((resolve, reject) => {
    const w = new Worker(
      `import(${JSON.stringify(WORKER_ENTRY)}).then((m) => require('node:worker_threads').parentPort.postMessage([m.codeCache, typeof m.default]))`,
      { eval: true, execArgv },
    );
    w.once('message', (m: [string, string]) => void w.terminate().then(() => resolve(m)));
    w.once('error', reject);
  });

describe('the worker code cache', () => {
  it('is built for this Node version and taken by a worker under the permission flags', async () => {
    const cache = path.join(DIST_DIR, 'worker-bundle', `worker-${process.version}-${process.arch}.cache`);
    await expect(access(cache)).resolves.toBeUndefined();
    expect(await load(permissionFlags())).toEqual(['used', 'function']);
  });

  it('is built for the CLI too, and taken by a fresh process', () => {
    const loader = path.join(DIST_DIR, 'code-cache.mjs');
    const bundle = path.join(DIST_DIR, 'host', 'cli', 'cadre.cjs');
    const state = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(loader)}); const r = m.loadCached(${JSON.stringify(bundle)}); console.log(r.codeCache, typeof r.exports.main);`,
      ],
      { encoding: 'utf8' },
    );
    expect(state.trim()).toBe('used function');
  });
});
