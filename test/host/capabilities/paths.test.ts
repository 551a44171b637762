import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside, resolvePath, shownPath } from '../../../src/host/capabilities/paths.js';

let base: string;
let project: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-paths-')));
  project = path.join(base, 'project');
  outside = path.join(base, 'outside');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(project, 'src', 'a.ts'), 'a');
  await writeFile(path.join(outside, 'secret.txt'), 's');
  await symlink(path.join(outside, 'secret.txt'), path.join(project, 'link-file'));
  await symlink(outside, path.join(project, 'link-dir'));
  await symlink(path.join(outside, 'nothing-here', 'new.txt'), path.join(project, 'dangling'));
  await symlink('loop-b', path.join(project, 'loop-a'));
  await symlink('loop-a', path.join(project, 'loop-b'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('resolvePath', () => {
  it('resolves a relative path against the project', async () => {
    const r = await resolvePath('src/a.ts', project);
    expect(r).toEqual({
      requested: 'src/a.ts',
      absolute: path.join(project, 'src/a.ts'),
      real: path.join(project, 'src/a.ts'),
      exists: true,
    });
  });

  it('keeps an absolute path, and normalises ..', async () => {
    expect((await resolvePath(path.join(outside, 'secret.txt'), project)).real).toBe(
      path.join(outside, 'secret.txt'),
    );
    const up = await resolvePath('src/../../outside/secret.txt', project);
    expect(up.absolute).toBe(path.join(outside, 'secret.txt'));
    expect(isInside(up.real, [project])).toBe(false);
  });

  it('follows a symlinked file and a symlinked directory out of the project', async () => {
    const file = await resolvePath('link-file', project);
    expect(file.absolute).toBe(path.join(project, 'link-file'));
    expect(file.real).toBe(path.join(outside, 'secret.txt'));
    const dir = await resolvePath('link-dir/secret.txt', project);
    expect(dir.real).toBe(path.join(outside, 'secret.txt'));
    expect(dir.exists).toBe(true);
  });

  it('sees a not-yet-existing file under a symlinked directory as outside', async () => {
    const r = await resolvePath('link-dir/new/deeper.txt', project);
    expect(r.exists).toBe(false);
    expect(r.real).toBe(path.join(outside, 'new', 'deeper.txt'));
    expect(isInside(r.real, [project])).toBe(false);
  });

  it('judges a dangling symlink by its target', async () => {
    const r = await resolvePath('dangling', project);
    expect(r.exists).toBe(false);
    expect(r.real).toBe(path.join(outside, 'nothing-here', 'new.txt'));
  });

  it('resolves a new file in the project to its real location', async () => {
    const r = await resolvePath('src/new/file.ts', project);
    expect(r).toMatchObject({ exists: false, real: path.join(project, 'src/new/file.ts') });
  });

  it('does not expand ~', async () => {
    const r = await resolvePath('~/notes.txt', project);
    expect(r.absolute).toBe(path.join(project, '~', 'notes.txt'));
  });

  it('rejects NUL bytes and symlink loops with invalid_input', async () => {
    await expect(resolvePath('a\0b', project)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(resolvePath('loop-a', project)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('shownPath', () => {
  it('names where a symlink leads, inside the project or out, on one line', async () => {
    await symlink('src/a.ts', path.join(project, 'notes.md'));
    expect(shownPath(await resolvePath('src/a.ts', project), project)).toBe('src/a.ts');
    expect(shownPath(await resolvePath('notes.md', project), project)).toBe('notes.md \u2192 src/a.ts');
    expect(shownPath(await resolvePath('link-file', project), project)).toBe(
      `link-file \u2192 ${path.join(outside, 'secret.txt')}`,
    );
    // A line break in a name cannot start a line of a prompt (a forged key row).
    expect(shownPath(await resolvePath('x\n[y] allow once', project), project)).toBe('x\u240a[y] allow once');
  });
});

describe('isInside', () => {
  it('accepts the root and what is below it, not a sibling sharing a prefix', () => {
    expect(isInside('/p/proj', ['/p/proj'])).toBe(true);
    expect(isInside('/p/proj/a/b', ['/p/proj'])).toBe(true);
    expect(isInside('/p/project2/a', ['/p/proj'])).toBe(false);
    expect(isInside('/p/x', ['/p/proj', '/p/x'])).toBe(true);
    expect(isInside('/anything', ['/'])).toBe(true);
  });
});
