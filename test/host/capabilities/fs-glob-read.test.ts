// Grep's one-pass search: the walk finds files, the policy judges each, the allowed ones are read,
// in path order and within the byte budget, exactly as fs.glob followed by fs.readMany would.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globRead, WALK_BATCH_FILES } from '../../../src/host/capabilities/fs/glob-read.js';
import { glob } from '../../../src/host/capabilities/fs/glob.js';
import type { JudgeContext } from '../../../src/host/capabilities/fs/judge-read-sync.js';
import { judgeReadMany } from '../../../src/host/capabilities/fs/read-many.js';
import type { FsReadManyResult } from '../../../src/shared/capabilities.js';

let base: string;
let project: string;
let ctx: JudgeContext;

async function put(rel: string, content: string): Promise<void> {
  const file = path.join(project, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-glob-read-')));
  project = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, 'secret.ts'), 'SECRET\n');
  await put('.gitignore', 'ignored/\n');
  await put('ignored/x.ts', 'ignored\n');
  await put('.env', 'TOKEN=1\n');
  await put('a-b.ts', 'dash\n');
  await put('a/x.ts', 'slash\n');
  await put('vendor/v.ts', 'vendored\n');
  await put('bin.dat', 'a\0b');
  // Enough files for several walk batches, read on both I/O threads.
  for (let i = 0; i < WALK_BATCH_FILES * 3 + 7; i++)
    await put(`many/f${String(i).padStart(4, '0')}.txt`, `file ${i}\n`);
  await symlink(path.join(outside, 'secret.ts'), path.join(project, 'leak.ts'));
  await symlink(outside, path.join(project, 'escape'));
  await symlink(path.join(project, 'a'), path.join(project, 'a-link'));
  ctx = { projectDir: project, extraRoots: [], homeDir: path.join(base, 'home'), mode: 'default', rules: {} };
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const walk = () => ({ projectDir: project, sort: 'path' as const, limit: 100_000 });

/** What fs.glob then fs.readMany (path by path) answer for the same search. */
async function twoStep(pattern: string, judge: JudgeContext): Promise<FsReadManyResult> {
  const listed = await glob(project, pattern, walk());
  return (await judgeReadMany(listed.files, judge)).result;
}

describe('globRead', () => {
  it('reads what fs.glob lists and fs.readMany reads, in path order, judging every file', async () => {
    const judge = { ...ctx, rules: { deny: ['Grep(vendor/**)'] } };
    const { result, found } = await globRead(project, '**/*', walk(), judge);
    const expected = await twoStep('**/*', judge);
    expect(result.files.map((f) => f.path)).toEqual(expected.files.map((f) => f.path));
    expect(result.files).toEqual(expected.files);
    const reasons = (r: FsReadManyResult) => r.skipped.map((s) => `${s.path}: ${s.reason}`).sort();
    expect(reasons(result)).toEqual(reasons(expected));
    expect(found).toBe(expected.files.length + expected.skipped.length);
    expect(result.truncated).toBe(false);
    const paths = result.files.map((f) => f.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths.indexOf('a-b.ts')).toBeLessThan(paths.indexOf('a/x.ts'));
    expect(paths).toContain('a-link/x.ts');
    expect(paths).not.toContain('ignored/x.ts');
    const skipped = Object.fromEntries(result.skipped.map((s) => [s.path, s.reason]));
    expect(skipped['.env']).toMatch(/sensitive file/);
    expect(skipped['leak.ts']).toMatch(/outside the project/);
    expect(skipped['vendor/v.ts']).toMatch(/Grep\(vendor\/\*\*\)/);
    expect(skipped['bin.dat']).toBe('binary');
    expect(JSON.stringify(result)).not.toMatch(/SECRET|TOKEN/);
  });

  it('packs the same contents into one buffer', async () => {
    const plain = (await globRead(project, 'many/*', walk(), ctx)).result;
    const { result } = await globRead(project, 'many/*', walk(), ctx, { packed: true });
    const packed = result.packed;
    if (!packed) throw new Error('not packed');
    expect(packed.paths).toEqual(plain.files.map((f) => f.path));
    expect(new TextDecoder().decode(packed.bytes)).toBe(plain.files.map((f) => f.content).join(''));
    expect(packed.mtimes).toEqual(plain.files.map((f) => f.mtimeMs));
  });

  it('stops at its byte budget and hands back the rest, in order, as deferred', async () => {
    const all = (await globRead(project, 'many/*', walk(), ctx)).result.files.map((f) => f.path);
    const { result } = await globRead(project, 'many/*', walk(), ctx, { budget: 100 });
    const read = result.files.map((f) => f.path);
    expect(read.length).toBeGreaterThan(0);
    expect(result.files.reduce((n, f) => n + f.content.length, 0)).toBeLessThan(100 + 20);
    expect([...read, ...(result.deferred ?? [])]).toEqual(all);
  });

  it('reads little more than its byte budget, however many batches are in flight', async () => {
    // 1,024 files of 64 KiB in four walk batches of 16 MiB each, under a 4 MiB budget.
    const big = 'x'.repeat(64 * 1024 - 1) + '\n';
    await Promise.all(
      Array.from({ length: 4 * WALK_BATCH_FILES }, (_, i) =>
        put(`big/b${String(i).padStart(4, '0')}.txt`, big),
      ),
    );
    const budget = 4 * 1024 * 1024;
    const { result, bytesRead } = await globRead(project, 'big/*', walk(), ctx, { budget, packed: true });
    const kept = result.packed?.bytes.length ?? 0;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(budget + big.length);
    // Each batch in flight (four at most) may pass its share by one file.
    expect(bytesRead).toBeLessThanOrEqual(budget + 4 * big.length);
    const all = Array.from(
      { length: 4 * WALK_BATCH_FILES },
      (_, i) => `big/b${String(i).padStart(4, '0')}.txt`,
    );
    expect([...(result.packed?.paths ?? []), ...(result.deferred ?? [])]).toEqual(all);
    await rm(path.join(project, 'big'), { recursive: true });
  });

  it('sends again what a batch left at its share while budget is left, so the call still fills it', async () => {
    // One walk batch of 16 KiB files (4 MiB) and two of tiny ones, under an 8 MiB budget: the first
    // batch's share is smaller than its files, but the whole search fits.
    const mid = 'y'.repeat(16 * 1024 - 1) + '\n';
    const names = Array.from(
      { length: 3 * WALK_BATCH_FILES },
      (_, i) => `mixed/m${String(i).padStart(4, '0')}.txt`,
    );
    await Promise.all(names.map((name, i) => put(name, i < WALK_BATCH_FILES ? mid : 'tiny\n')));
    const { result, bytesRead } = await globRead(project, 'mixed/*', walk(), ctx, {
      budget: 8 * 1024 * 1024,
      packed: true,
    });
    expect(result.deferred).toBeUndefined();
    expect(result.packed?.paths).toEqual(names);
    expect(bytesRead).toBe(result.packed?.bytes.length);
    await rm(path.join(project, 'mixed'), { recursive: true });
  });

  it('says when the walk stopped at its limit, and refuses a bad pattern', async () => {
    const { result } = await globRead(project, 'many/*', { ...walk(), limit: 10 }, ctx);
    expect(result.files.map((f) => f.path)).toEqual(
      Array.from({ length: 10 }, (_, i) => `many/f${String(i).padStart(4, '0')}.txt`),
    );
    expect(result.truncated).toBe(true);
    await expect(globRead(project, '../*', walk(), ctx)).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('gives up, reading nothing more, once the run has ended', async () => {
    const ended = new AbortController();
    ended.abort();
    await expect(globRead(project, '**/*', walk(), ctx, { signal: ended.signal })).rejects.toMatchObject({
      code: 'cancelled',
    });
  });
});
