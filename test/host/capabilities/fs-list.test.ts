import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { list } from '../../../src/host/capabilities/fs/list.js';
import { stat } from '../../../src/host/capabilities/fs/stat.js';

let dir: string;
const at = (...parts: string[]) => path.join(dir, ...parts);

beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-list-')));
  await mkdir(at('src'));
  await writeFile(at('b.txt'), 'bb');
  await writeFile(at('a.txt'), 'a');
  await writeFile(at('.env'), 'SECRET=1');
  await writeFile(at('debug.log'), 'log');
  await symlink(at('a.txt'), at('link'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('stat', () => {
  it('describes files and directories, and a missing path as a value', async () => {
    expect(await stat(at('b.txt'))).toMatchObject({ exists: true, type: 'file', size: 2 });
    expect(await stat(at('src'))).toMatchObject({ exists: true, type: 'directory' });
    expect(await stat(at('nope'))).toEqual({
      path: at('nope'),
      exists: false,
      type: 'missing',
      size: 0,
      mtimeMs: 0,
    });
    expect(await stat(at('b.txt', 'under-a-file'))).toMatchObject({ exists: false });
  });
});

describe('list', () => {
  it('lists entries sorted by name with types and sizes, symlinks not followed', async () => {
    const r = await list(dir);
    expect(r.entries).toEqual([
      { name: '.env', type: 'file', size: 8 },
      { name: 'a.txt', type: 'file', size: 1 },
      { name: 'b.txt', type: 'file', size: 2 },
      { name: 'debug.log', type: 'file', size: 3 },
      { name: 'link', type: 'symlink', size: 0 },
      { name: 'src', type: 'directory', size: 0 },
    ]);
    expect(r.truncated).toBe(false);
  });

  it('drops entries matching ignore globs, dotfiles included', async () => {
    const r = await list(dir, ['*.log', '.*']);
    expect(r.entries.map((e) => e.name)).toEqual(['a.txt', 'b.txt', 'link', 'src']);
  });

  it('caps the listing and says so', async () => {
    const many = at('many');
    await mkdir(many);
    await Promise.all(
      Array.from({ length: 1005 }, (_, i) =>
        writeFile(path.join(many, `f${String(i).padStart(4, '0')}`), ''),
      ),
    );
    const r = await list(many);
    expect(r.entries).toHaveLength(1000);
    expect(r.entries[0]?.name).toBe('f0000');
    expect(r.truncated).toBe(true);
  });

  it('rejects a file, a missing directory and a bad glob with codes', async () => {
    await expect(list(at('a.txt'))).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(list(at('missing'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(list(dir, ['{a,b}'.repeat(11)])).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
