// The walk behind Glob and Grep lists only directories it checked: a directory swapped for a symlink
// to the outside after its parent was listed (another process racing the walk, as an agent's Bash
// can) never hands the outside directory's file names to the worker, through fs.glob or through
// fs.readMany's glob form. Symlinked directories inside the allowed roots are still walked.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globRead } from '../../../src/host/capabilities/fs/glob-read.js';
import { glob } from '../../../src/host/capabilities/fs/glob.js';
import type { JudgeContext } from '../../../src/host/capabilities/fs/judge-read-sync.js';
import { startSwapper } from '../../support/swap-race.js';

const OUTSIDE_NAME = 'OTHER-USERS-PRIVATE-FILENAME.txt';
let base: string;
let project: string;
let outside: string;
let extra: string;
let ctx: JudgeContext;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-walk-swap-')));
  project = path.join(base, 'project');
  outside = path.join(base, 'outside');
  extra = path.join(base, 'extra');
  await mkdir(path.join(project, 'y'), { recursive: true });
  await mkdir(outside);
  await mkdir(extra);
  await writeFile(path.join(project, 'y', 'credentials'), 'inside\n');
  await writeFile(path.join(outside, OUTSIDE_NAME), 'x\n');
  await writeFile(path.join(extra, 'shared.ts'), 'shared\n');
  ctx = { projectDir: project, extraRoots: [], homeDir: path.join(base, 'home'), mode: 'default', rules: {} };
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('the walk, racing a process that swaps a directory for a symlink to the outside', () => {
  it('never lists the outside directory, through fs.glob or fs.readMany', async () => {
    const swapper = await startSwapper(project, { y: outside });
    const walk = { projectDir: project, sort: 'path' as const };
    let calls = 0;
    let listed = 0;
    let missed = 0;
    try {
      const end = performance.now() + 2500;
      while (performance.now() < end) {
        const read = await globRead(project, 'y/*', walk, ctx, { packed: true });
        const listing = await glob(project, 'y/*', walk);
        calls++;
        expect(JSON.stringify(read)).not.toContain(OUTSIDE_NAME);
        expect(JSON.stringify(listing)).not.toContain(OUTSIDE_NAME);
        if (listing.files.includes('y/credentials')) listed++;
        else missed++;
      }
    } finally {
      await swapper.stop();
    }
    expect(calls).toBeGreaterThan(50);
    // The walk ran while y was itself and while it was not (swapped, or moved away).
    expect(listed).toBeGreaterThan(0);
    expect(missed).toBeGreaterThan(0);
  });
});

describe('symlinked directories the policy allows', () => {
  it('are walked inside the project and into an extra root, and not elsewhere', async () => {
    await mkdir(path.join(project, 'src'), { recursive: true });
    await writeFile(path.join(project, 'src', 'a.ts'), 'a\n');
    await symlink(path.join(project, 'src'), path.join(project, 'src-link'));
    await symlink(extra, path.join(project, 'ext'));
    await symlink(outside, path.join(project, 'out'));
    try {
      const roots = [project, extra];
      const found = await glob(project, '**/*.{ts,txt}', { projectDir: project, roots, sort: 'path' });
      expect(found.files).toEqual(['ext/shared.ts', 'src-link/a.ts', 'src/a.ts']);
      const { result } = await globRead(
        project,
        '**/*.ts',
        { projectDir: project, roots, sort: 'path' },
        { ...ctx, extraRoots: [extra] },
      );
      expect(result.files.map((f) => [f.path, f.content])).toEqual([
        ['ext/shared.ts', 'shared\n'],
        ['src-link/a.ts', 'a\n'],
        ['src/a.ts', 'a\n'],
      ]);
    } finally {
      for (const name of ['src', 'src-link', 'ext', 'out'])
        await rm(path.join(project, name), { recursive: true });
    }
  });
});
