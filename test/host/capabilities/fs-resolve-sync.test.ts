// The I/O thread resolves Grep's paths with synchronous calls; the policy's verdicts rest on those
// answers, so they must be exactly what the event loop's resolvePath gives, case by case.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveManySync, resolvePathSync } from '../../../src/host/capabilities/fs/resolve-sync.js';
import { resolvePath } from '../../../src/host/capabilities/paths.js';

let base: string;
let project: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-resolve-sync-')));
  project = path.join(base, 'project');
  outside = path.join(base, 'outside');
  await mkdir(path.join(project, 'src', 'deep'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(project, 'src', 'a.ts'), 'a');
  await writeFile(path.join(project, 'src', 'deep', 'b.ts'), 'b');
  await writeFile(path.join(project, '.env'), 'K=v');
  await writeFile(path.join(outside, 'secret.txt'), 's');
  await symlink(path.join(outside, 'secret.txt'), path.join(project, 'src', 'link-file'));
  await symlink(outside, path.join(project, 'link-dir'));
  await symlink(path.join(project, 'src'), path.join(project, 'src-alias'));
  await symlink(path.join(outside, 'nothing-here', 'new.txt'), path.join(project, 'dangling'));
  await symlink('loop-b', path.join(project, 'loop-a'));
  await symlink('loop-a', path.join(project, 'loop-b'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const CASES = [
  'src/a.ts',
  'src/deep/b.ts',
  'src/./a.ts',
  'src//a.ts',
  'src/deep/../a.ts',
  './src/a.ts',
  '.env',
  'src/link-file',
  'link-dir/secret.txt',
  'link-dir/new/deeper.txt',
  'src-alias/a.ts',
  'src-alias/deep/b.ts',
  'dangling',
  'missing.txt',
  'missing-dir/x.ts',
  'src/a.ts/not-a-dir',
  '../outside/secret.txt',
  'src/../../outside/secret.txt',
  '~',
  '.',
  '/',
];

describe('resolvePathSync and resolveManySync', () => {
  it('give what resolvePath gives, path by path and as one batch', async () => {
    const cases = [...CASES, path.join(outside, 'secret.txt'), path.join(project, 'src', 'a.ts')];
    const expected = await Promise.all(cases.map((c) => resolvePath(c, project)));
    expect(cases.map((c) => resolvePathSync(c, project))).toEqual(expected);
    expect(resolveManySync(cases, project)).toEqual(expected);
  });

  it('refuse a NUL byte and a symlink loop as resolvePath does', async () => {
    for (const bad of ['src/a\0.ts', 'loop-a']) {
      const error = await resolvePath(bad, project).catch((e: unknown) => e);
      expect(() => resolvePathSync(bad, project)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
      expect(() => resolveManySync(['src/a.ts', bad], project)).toThrow(
        expect.objectContaining({ code: (error as { code: string }).code }),
      );
    }
  });
});
