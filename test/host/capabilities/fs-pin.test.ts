// The check-then-use window: a directory on a checked path swapped for a symlink to the outside
// (what an agent with Bash could race against the host) must not redirect a read or a write.
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMany } from '../../../src/host/capabilities/fs/read-many.js';
import { list } from '../../../src/host/capabilities/fs/list.js';
import { readText } from '../../../src/host/capabilities/fs/read.js';
import { writeAtomic } from '../../../src/host/capabilities/fs/write.js';
import { resolvePath } from '../../../src/host/capabilities/paths.js';
import { checkedThenSwapped, swapProject, type SwapProject } from './swap-fixture.js';

let base: string;
let project: string;
let outside: string;
let fx: SwapProject;

beforeEach(async () => {
  fx = await swapProject('cadre-pin-');
  ({ base, project, outside } = fx);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const swapped = (rel: string) => checkedThenSwapped(fx, rel);

describe('check-then-use window', () => {
  it('a read refuses what it opened when a directory was swapped after the check', async () => {
    const real = await swapped('sub/f.txt');
    await expect(readText(real)).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('a batch read skips such a file and never returns its content', async () => {
    const real = await swapped('sub/f.txt');
    const result = await readMany([real]);
    expect(result.files).toEqual([]);
    expect(result.skipped[0]?.reason).toMatch(/changed between the permission check and the open/);
  });

  it('a batch read refuses a file swapped for a symlink after the check', async () => {
    const checked = await resolvePath('sub/f.txt', project);
    await rm(path.join(project, 'sub', 'f.txt'));
    await symlink(path.join(outside, 'f.txt'), path.join(project, 'sub', 'f.txt'));
    const result = await readMany([checked.real]);
    expect(result.files).toEqual([]);
    expect(result.skipped[0]?.reason).toMatch(/changed between the permission check and the open/);
  });

  it('a batch read refuses every file of a swapped directory, and reads the others', async () => {
    await mkdir(path.join(project, 'other'));
    await writeFile(path.join(project, 'other', 'g.txt'), 'fine\n');
    const other = await resolvePath('other/g.txt', project);
    const real = await swapped('sub/f.txt');
    const result = await readMany([real, other.real, real]);
    expect(result.files.map((f) => f.content)).toEqual(['fine\n']);
    expect(result.skipped).toHaveLength(2);
    expect(JSON.stringify(result)).not.toMatch(/SECRET/);
  });

  it('a listing refuses a directory swapped after the check, and lists it unswapped', async () => {
    const checked = await resolvePath('sub', project);
    expect((await list(checked.real)).entries.map((e) => e.name)).toEqual(['f.txt']);
    await writeFile(path.join(outside, 'OTHER-NAME.txt'), 'x\n');
    const real = await swapped('sub');
    await expect(list(real)).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('a write refuses, and nothing lands outside', async () => {
    const real = await swapped('sub/new.txt');
    await expect(writeAtomic(real, 'pwned')).rejects.toMatchObject({ code: 'permission_denied' });
    expect((await readdir(outside)).sort()).toEqual(['f.txt']);
  });

  it('a write under missing directories creates none of them outside', async () => {
    const real = await swapped('sub/deep/er/new.txt');
    await expect(writeAtomic(real, 'pwned')).rejects.toMatchObject({ code: 'permission_denied' });
    expect((await readdir(outside)).sort()).toEqual(['f.txt']);
  });

  it('a write under missing directories creates them inside when nothing was swapped', async () => {
    const checked = await resolvePath('sub/a/b/c/new.txt', project);
    await writeAtomic(checked.real, 'made\n');
    expect((await readText(checked.real)).content).toBe('made\n');
  });

  it('unswapped paths read and write as before', async () => {
    const checked = await resolvePath('sub/f.txt', project);
    expect((await readText(checked.real)).content).toBe('inside\n');
    await writeAtomic(checked.real, 'changed\n');
    expect((await readText(checked.real)).content).toBe('changed\n');
    expect((await readMany([checked.real])).files[0]?.content).toBe('changed\n');
  });
});
