import { chmod, mkdtemp, readdir, readFile, realpath, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAtomic } from '../../../src/host/capabilities/fs/write.js';

let dir: string;
const at = (...parts: string[]) => path.join(dir, ...parts);

beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-write-')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeAtomic', () => {
  it('creates a file and its missing parent directories', async () => {
    const r = await writeAtomic(at('a', 'b', 'c.txt'), 'héllo\n');
    expect(r).toMatchObject({ path: at('a', 'b', 'c.txt'), bytes: 7, created: true });
    expect(await readFile(at('a', 'b', 'c.txt'), 'utf8')).toBe('héllo\n');
    expect(r.mtimeMs).toBe((await stat(at('a', 'b', 'c.txt'))).mtimeMs);
  });

  it('replaces an existing file, keeps its mode, and leaves no temp file', async () => {
    await writeFile(at('run.sh'), 'old');
    await chmod(at('run.sh'), 0o751);
    const r = await writeAtomic(at('run.sh'), 'new');
    expect(r.created).toBe(false);
    expect(await readFile(at('run.sh'), 'utf8')).toBe('new');
    expect((await stat(at('run.sh'))).mode & 0o7777).toBe(0o751);
    expect((await readdir(dir)).filter((n) => n.includes('.tmp'))).toEqual([]);
  });

  it('refuses with stale_file when the file changed since it was read', async () => {
    await writeFile(at('edited.txt'), 'v1');
    const { mtimeMs } = await stat(at('edited.txt'));
    await utimes(at('edited.txt'), new Date(), new Date(mtimeMs + 5000));
    await expect(writeAtomic(at('edited.txt'), 'v2', { expectedMtimeMs: mtimeMs })).rejects.toMatchObject({
      code: 'stale_file',
    });
    expect(await readFile(at('edited.txt'), 'utf8')).toBe('v1');
    const fresh = (await stat(at('edited.txt'))).mtimeMs;
    await expect(writeAtomic(at('edited.txt'), 'v2', { expectedMtimeMs: fresh })).resolves.toMatchObject({
      created: false,
    });
    expect(await readFile(at('edited.txt'), 'utf8')).toBe('v2');
  });

  it('treats a file deleted since it was read as stale', async () => {
    await expect(writeAtomic(at('gone.txt'), 'x', { expectedMtimeMs: 123 })).rejects.toMatchObject({
      code: 'stale_file',
      message: expect.stringMatching(/deleted/),
    });
  });

  it('refuses to write over a directory and cleans up after a failed write', async () => {
    await expect(writeAtomic(at('a'), 'x')).rejects.toMatchObject({ code: 'invalid_input' });
    // A parent that is a file makes the write fail; no temp file may remain anywhere.
    await writeFile(at('plain'), 'p');
    await expect(writeAtomic(at('plain', 'child.txt'), 'x')).rejects.toMatchObject({
      code: expect.stringMatching(/not_found|io_error/),
    });
    expect((await readdir(dir)).filter((n) => n.includes('.tmp'))).toEqual([]);
  });

  it('is atomic for concurrent readers: never half a file', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    await writeFile(at('big.txt'), big);
    const next = 'y'.repeat(2 * 1024 * 1024);
    const reads: Promise<string>[] = [];
    const write = writeAtomic(at('big.txt'), next);
    for (let i = 0; i < 20; i++) reads.push(readFile(at('big.txt'), 'utf8'));
    await write;
    for (const content of await Promise.all(reads)) expect(content === big || content === next).toBe(true);
  });
});
