import { spawnSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAgentFile, readAgentFiles } from '../../../src/host/registry/read-agent-files.js';
import { tempDir, writeFiles } from './temp-dirs.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

const contentOf = (read: Awaited<ReturnType<typeof readAgentFile>>) =>
  'content' in read ? read.content : read.error.message;

describe('readAgentFiles', () => {
  it('reads *.md files of every size in file-name order, through symlinks too', async () => {
    const medium = 'm'.repeat(16 * 1024);
    const large = 'é'.repeat(300_000);
    await writeFiles(dir, {
      'b.md': 'small',
      'a.md': medium,
      'c.MD': large,
      'empty.md': '',
      'skip.txt': 'x',
    });
    await symlink(path.join(dir, 'b.md'), path.join(dir, 'link.md'));
    const { items, errors } = await readAgentFiles(dir, (r) => [path.basename(r.path), contentOf(r)]);
    expect(errors).toEqual([]);
    expect(items).toEqual([
      ['a.md', medium],
      ['b.md', 'small'],
      ['c.MD', large],
      ['empty.md', ''],
      ['link.md', 'small'],
    ]);
  });

  it('a missing directory is an empty source, a file in its place too', async () => {
    expect(await readAgentFiles(path.join(dir, 'nope'), (r) => r)).toEqual({ items: [], errors: [] });
    await writeFiles(dir, { file: 'x' });
    expect(await readAgentFiles(path.join(dir, 'file'), (r) => r)).toEqual({ items: [], errors: [] });
  });

  it('refuses files over the size cap without reading them', async () => {
    await writeFiles(dir, { 'huge.md': Buffer.alloc(5 * 1024 * 1024, 0x61) });
    const { items } = await readAgentFiles(dir, contentOf);
    expect(items).toEqual(['file is 5.0 MiB, over the 4.0 MiB limit; not loaded']);
  });

  it('a symlink to a FIFO is an error, not a hang; a symlink back to the folder is not walked again', async () => {
    const fifo = path.join(dir, 'pipe');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return; // no mkfifo on this system
    await symlink(fifo, path.join(dir, 'fifo.md'));
    await symlink(dir, path.join(dir, 'dir.md'));
    await writeFiles(dir, { 'a.md': 'agent' });
    const { items, errors } = await readAgentFiles(dir, (r) => [path.basename(r.path), contentOf(r)]);
    expect(errors).toEqual([]);
    expect(items).toEqual([
      ['a.md', 'agent'],
      ['fifo.md', 'not a regular file'],
    ]);
  });

  it('readAgentFile names the file when it cannot be opened', async () => {
    const read = await readAgentFile(path.join(dir, 'missing.md'));
    expect(read).toEqual({
      path: path.join(dir, 'missing.md'),
      error: { path: path.join(dir, 'missing.md'), message: expect.stringMatching(/^cannot read: ENOENT/) },
    });
  });
});
