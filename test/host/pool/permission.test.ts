import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ThreadPool } from '../../../src/host/pool/thread-pool.js';
import { DIST_DIR, permissionFlags } from '../../../src/host/pool/worker-flags.js';

describe('workers run under the Node permission model', () => {
  it('cannot open a file, write one, spawn a process or start a worker by itself', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-perm-'));
    const outside = path.join(dir, 'secret.txt');
    const writeTo = path.join(dir, 'escaped.txt');
    await writeFile(outside, 'top secret');
    const fixture = fileURLToPath(new URL('../../fixtures/workers/escape.mjs', import.meta.url));
    const pool = new ThreadPool({
      maxThreads: 1,
      filename: fixture,
      extraReadRoots: [path.dirname(fixture)],
    });
    try {
      const result = (await (pool.piscina as unknown as { run(task: unknown): Promise<unknown> }).run({
        outside,
        writeTo,
      })) as unknown as { attempts: Record<string, string>; permission: boolean };
      expect(result.permission).toBe(true);
      expect(result.attempts).toEqual({
        readFileSync: 'ERR_ACCESS_DENIED',
        readFile: 'ERR_ACCESS_DENIED',
        writeFile: 'ERR_ACCESS_DENIED',
        spawn: 'ERR_ACCESS_DENIED',
        worker: 'ERR_ACCESS_DENIED',
      });
      await expect(readFile(writeTo)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await pool.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('starts threads whose read roots repeat one (Node 20 aborts the process on a repeated flag)', async () => {
    const fixture = fileURLToPath(new URL('../../fixtures/workers/escape.mjs', import.meta.url));
    const flags = permissionFlags([DIST_DIR, DIST_DIR, path.dirname(fixture)]);
    expect(flags.filter((flag) => flag.startsWith('--allow-fs-read=')).length).toBe(2);
    const pool = new ThreadPool({
      maxThreads: 1,
      filename: fixture,
      extraReadRoots: [path.dirname(fixture), DIST_DIR],
    });
    try {
      const result = (await (pool.piscina as unknown as { run(task: unknown): Promise<unknown> }).run({
        outside: path.join(os.tmpdir(), 'cadre-absent', 'x'),
        writeTo: path.join(os.tmpdir(), 'cadre-absent', 'y'),
      })) as unknown as { permission: boolean };
      expect(result.permission).toBe(true);
    } finally {
      await pool.close();
    }
  });
});
