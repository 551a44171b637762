import { mkdir, mkdtemp, realpath, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glob, planGlob } from '../../../src/host/capabilities/fs/glob.js';

let base: string;
let project: string;
let outside: string;

async function put(root: string, rel: string, content = 'x', ageSeconds?: number): Promise<void> {
  const file = path.join(root, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  if (ageSeconds !== undefined) {
    const t = new Date(Date.now() - ageSeconds * 1000);
    await utimes(file, t, t);
  }
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-glob-')));
  project = path.join(base, 'project');
  outside = path.join(base, 'outside');
  await put(project, '.gitignore', '*.log\n!keep.log\ndist/\n/generated\n');
  await put(project, '.git/info/exclude', 'local-notes.md\n');
  await put(project, '.git/config', '[core]');
  await put(project, 'src/old.ts', 'o', 300);
  await put(project, 'src/mid.ts', 'm', 200);
  await put(project, 'src/new.ts', 'n', 100);
  await put(project, 'src/deep/er/leaf.ts', 'l', 250);
  await put(project, 'src/.hidden.ts', 'h', 400);
  await put(project, 'src/.gitignore', 'secret-*.ts\n');
  await put(project, 'src/secret-token.ts', 's');
  await put(project, 'debug.log');
  await put(project, 'keep.log');
  await put(project, 'dist/bundle.js');
  await put(project, 'generated/g.ts');
  await put(project, 'pkg/generated/kept.ts');
  await put(project, 'local-notes.md');
  await put(project, 'README.md');
  await put(project, 'node_modules/lib/index.js');
  await put(project, 'node_modules/lib/package.json', '{}');
  await put(outside, 'stolen.ts');
  await symlink(outside, path.join(project, 'escape'));
  await symlink(path.join(project, 'src', 'deep'), path.join(project, 'deep-link'));
  await symlink(project, path.join(project, 'src', 'loop'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const files = async (pattern: string, root = project, limit?: number) =>
  (await glob(root, pattern, limit === undefined ? { projectDir: project } : { projectDir: project, limit }))
    .files;

describe('glob', () => {
  it('returns matches relative to the project, newest first', async () => {
    expect(await files('src/*.ts')).toEqual(['src/new.ts', 'src/mid.ts', 'src/old.ts', 'src/.hidden.ts']);
  });

  it('returns path order, with no stats, when asked to sort by path', async () => {
    const result = await glob(project, 'src/*.ts', { projectDir: project, sort: 'path' });
    expect(result.files).toEqual(['src/.hidden.ts', 'src/mid.ts', 'src/new.ts', 'src/old.ts']);
  });

  it('skips .cadre (transcripts, audit log) unless the pattern names it', async () => {
    await put(project, '.cadre/transcripts/run-1.jsonl');
    expect((await files('**/*.jsonl')).some((f) => f.startsWith('.cadre/'))).toBe(false);
    expect(await files('.cadre/**/*.jsonl')).toEqual(['.cadre/transcripts/run-1.jsonl']);
    await rm(path.join(project, '.cadre'), { recursive: true, force: true });
  });

  it('honours .gitignore with negation, nested files, anchoring and info/exclude', async () => {
    const all = await files('**/*');
    expect(all).toContain('keep.log');
    expect(all).not.toContain('debug.log');
    expect(all).not.toContain('dist/bundle.js');
    expect(all).not.toContain('generated/g.ts');
    expect(all).toContain('pkg/generated/kept.ts');
    expect(all).not.toContain('src/secret-token.ts');
    expect(all).not.toContain('local-notes.md');
    expect(all).toContain('README.md');
  });

  it('skips .git and node_modules unless the pattern names them', async () => {
    const all = await files('**/*');
    expect(all.some((f) => f.startsWith('.git/') || f.startsWith('node_modules/'))).toBe(false);
    expect(await files('node_modules/**/*.json')).toEqual(['node_modules/lib/package.json']);
    expect(await files('**/node_modules/**/index.js')).toEqual(['node_modules/lib/index.js']);
    expect(await files('.git/*')).toEqual(['.git/config']);
  });

  it('walks an explicitly named ignored directory', async () => {
    expect(await files('dist/*.js')).toEqual(['dist/bundle.js']);
  });

  it('never follows a symlinked directory out of the roots, nor into a cycle', async () => {
    const all = await files('**/*.ts');
    expect(all.some((f) => f.includes('stolen'))).toBe(false);
    expect(await files('escape/*.ts')).toEqual([]);
    // A symlink to a directory inside the project is followed, once.
    expect(all).toContain('deep-link/er/leaf.ts');
    expect(all.filter((f) => f.endsWith('leaf.ts'))).toHaveLength(2);
    expect(all.some((f) => f.startsWith('src/loop/'))).toBe(false);
  });

  it('globs under a subdirectory root, with the project .gitignore still applying', async () => {
    const r = await glob(path.join(project, 'src'), '**/*.ts', { projectDir: project });
    expect(r.root).toBe('src');
    expect(r.files).toContain('src/deep/er/leaf.ts');
    expect(r.files).not.toContain('src/secret-token.ts');
    const logs = await glob(project, '*.log', { projectDir: project });
    expect(logs.files).toEqual(['keep.log']);
  });

  it('accepts a project directory and roots given through a symlink', async () => {
    const alias = path.join(base, 'alias');
    await symlink(project, alias);
    const r = await glob(project, '**/leaf.ts', { projectDir: alias, roots: [alias] });
    expect(r.files.sort()).toEqual(['deep-link/er/leaf.ts', 'src/deep/er/leaf.ts']);
  });

  it('caps matches and says it truncated', async () => {
    const r = await glob(project, '**/*', { projectDir: project, limit: 3 });
    expect(r.files).toHaveLength(3);
    expect(r.truncated).toBe(true);
    expect((await glob(project, 'src/*.ts', { projectDir: project, limit: 4 })).truncated).toBe(false);
  });

  it('returns nothing for a root that does not exist', async () => {
    expect(await files('*.ts', path.join(project, 'nope'))).toEqual([]);
  });

  it('rejects empty, absolute and .. patterns', async () => {
    await expect(files('')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(files('/etc/*')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(files('../outside/*.ts')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(files('src/{..,x}/*.ts')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('plans the walk from the literal prefix', () => {
    expect(planGlob('./src/host/**/*.ts')).toMatchObject({ prefix: ['src', 'host'], maxDepth: Infinity });
    expect(planGlob('a/*/b.ts')).toMatchObject({ prefix: ['a'], maxDepth: 3 });
  });
});

describe('glob on a 20,000-file tree', () => {
  it('finds every file of a 20,000-file tree (its speed is measured in bench/kernel)', async () => {
    const big = path.join(base, 'big');
    const writes: Promise<void>[] = [];
    for (let d = 0; d < 200; d++) {
      for (let f = 0; f < 100; f++)
        writes.push(put(big, `pkg${d % 10}/dir${d}/file${f}.${f % 2 ? 'ts' : 'js'}`, ''));
    }
    await Promise.all(writes);
    const all = await glob(big, '**/*', { projectDir: big, limit: 100_000 });
    const ts = await glob(big, '**/*.ts', { projectDir: big });
    expect(all.files).toHaveLength(20_000);
    expect(ts.files).toHaveLength(10_000);
  });
});
