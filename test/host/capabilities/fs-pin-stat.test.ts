// The race check where /proc's descriptor links do not work (macOS): pin.ts's 'stat' mode, passed
// to each file effect (as the mode the probe would have chosen there), must refuse what a swapped directory or file leads to, in the batch read (the I/O
// thread's code, run here), in fs.read and in fs.write, and let everything unswapped through (the
// walk's listings included).
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globSync } from '../../../src/host/capabilities/fs/glob-walk-sync.js';
import { openCheck, underFd } from '../../../src/host/capabilities/fs/pin.js';
import { readBatchSync } from '../../../src/host/capabilities/fs/read-batch-sync.js';
import { list } from '../../../src/host/capabilities/fs/list.js';
import { readText } from '../../../src/host/capabilities/fs/read.js';
import { writeAtomic } from '../../../src/host/capabilities/fs/write.js';
import { resolvePath } from '../../../src/host/capabilities/paths.js';
import { checkedThenSwapped, swapProject, type SwapProject } from './swap-fixture.js';

let base: string;
let project: string;
let outside: string;
let fx: SwapProject;

beforeAll(() => {
  // This suite runs on Linux, where the probe finds /proc: every effect below is given 'stat'.
  expect(openCheck()).toBe('proc');
});
beforeEach(async () => {
  fx = await swapProject('cadre-pin-stat-');
  ({ base, project, outside } = fx);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const swapped = (rel: string) => checkedThenSwapped(fx, rel);
/** The mode under test. */
const STAT = 'stat' as const;

const RACED = /changed between the permission check and the open/;
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("the 'stat' mode race check", () => {
  it('is in force where it is passed, and the probed mode elsewhere', () => {
    expect(underFd(7, '/p/sub', 'f.txt', STAT)).toBe('/p/sub/f.txt');
    expect(underFd(7, '/p/sub', 'f.txt')).toMatch(/^\/proc\/.*\/fd\/7\/f\.txt$/);
  });

  it('a batch read refuses a file whose directory was swapped after the check', async () => {
    const real = await swapped('sub/f.txt');
    const batch = readBatchSync([real], 1 << 20, 1 << 24, undefined, STAT);
    expect(batch.read).toEqual([]);
    expect(batch.skipped[0]?.reason).toMatch(RACED);
    expect(decode(batch.bytes)).not.toMatch(/SECRET/);
  });

  it('a batch read refuses a file swapped for a symlink after the check', async () => {
    const checked = await resolvePath('sub/f.txt', project);
    await rm(path.join(project, 'sub', 'f.txt'));
    await symlink(path.join(outside, 'f.txt'), path.join(project, 'sub', 'f.txt'));
    const batch = readBatchSync([checked.real], 1 << 20, 1 << 24, undefined, STAT);
    expect(batch.read).toEqual([]);
    expect(batch.skipped[0]?.reason).toMatch(RACED);
  });

  it('a read refuses what a swapped directory leads to', async () => {
    const real = await swapped('sub/f.txt');
    await expect(readText(real, { openCheck: STAT })).rejects.toMatchObject({
      code: 'permission_denied',
      message: RACED,
    });
  });

  it('a listing refuses a directory swapped after the check, and lists it unswapped', async () => {
    const checked = await resolvePath('sub', project);
    expect((await list(checked.real, [], undefined, [], STAT)).entries.map((e) => e.name)).toEqual(['f.txt']);
    await writeFile(path.join(outside, 'OTHER-NAME.txt'), 'x\n');
    const real = await swapped('sub');
    await expect(list(real, [], undefined, [], STAT)).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('a write refuses, and nothing lands outside', async () => {
    const real = await swapped('sub/new.txt');
    await expect(writeAtomic(real, 'pwned', { openCheck: STAT })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    expect(await readdir(outside)).toEqual(['f.txt']);
  });

  it('a write under missing directories refuses when an existing one was swapped', async () => {
    const real = await swapped('sub/deep/er/new.txt');
    await expect(writeAtomic(real, 'pwned', { openCheck: STAT })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    expect(await readdir(outside)).toEqual(['f.txt']);
  });

  it('unswapped paths read and write as before', async () => {
    const checked = await resolvePath('sub/f.txt', project);
    expect((await readText(checked.real, { openCheck: STAT })).content).toBe('inside\n');
    await writeAtomic(checked.real, 'changed\n', { openCheck: STAT });
    expect(decode(readBatchSync([checked.real], 1 << 20, 1 << 24, undefined, STAT).bytes)).toBe('changed\n');
    const deep = await resolvePath('sub/a/b/new.txt', project);
    await writeAtomic(deep.real, 'made\n', { openCheck: STAT });
    expect((await readText(deep.real, { openCheck: STAT })).content).toBe('made\n');
  });

  it('the walk lists checked directories, follows symlinks inside the project and no others', async () => {
    await mkdir(path.join(project, 'sub', 'deeper'));
    await writeFile(path.join(project, 'sub', 'deeper', 'g.txt'), 'g\n');
    await writeFile(path.join(project, 'sub', '.gitignore'), 'ignored.txt\n');
    await writeFile(path.join(project, 'sub', 'ignored.txt'), 'i\n');
    await symlink(path.join(project, 'sub', 'deeper'), path.join(project, 'link'));
    await symlink(outside, path.join(project, 'out'));
    const found = globSync(project, '**/*.txt', { projectDir: project, sort: 'path', openCheck: STAT });
    expect(found.files).toEqual(['link/g.txt', 'sub/deeper/g.txt', 'sub/f.txt']);
  });
});
