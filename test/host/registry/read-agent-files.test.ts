import { spawnSync } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAgentFile, readAgentFiles } from '../../../src/host/registry/read-agent-files.js';
import { listAgentFiles, MAX_AGENT_DIR_ENTRIES } from '../../../src/host/registry/list-agent-files.js';
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

describe('listAgentFiles', () => {
  it('stops a walk that meets more than 50,000 entries (a link to a large folder), with an error', async () => {
    const big = path.join(dir, 'big');
    await writeFiles(big, { 'keep.md': 'x' });
    const names = Array.from({ length: MAX_AGENT_DIR_ENTRIES + 1 }, (_, i) => path.join(big, `f${i}`));
    for (let i = 0; i < names.length; i += 2000)
      await Promise.all(names.slice(i, i + 2000).map((n) => writeFile(n, '')));
    await writeFiles(dir, { 'agents/a.md': 'agent' });
    await symlink(big, path.join(dir, 'agents', 'linked'));
    const started = Date.now();
    const { files, errors } = await listAgentFiles(path.join(dir, 'agents'));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(files.map((f) => f.relativePath)).toEqual(['a.md']);
    expect(errors).toEqual([
      {
        path: path.join(dir, 'agents', 'linked'),
        message: expect.stringMatching(/more than 50000 entries .* the walk stopped here/),
      },
    ]);
  }, 60_000);
});
