// Grep's batches are resolved, judged by the policy and read in one pass on an I/O thread: what the
// policy denies is skipped with its reason and never read, whatever form the result takes.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeReadMany } from '../../../src/host/capabilities/fs/read-many.js';
import type { JudgeContext } from '../../../src/host/capabilities/fs/judge-read-sync.js';

let base: string;
let project: string;
let ctx: JudgeContext;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-judge-')));
  project = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await mkdir(path.join(project, 'vendor'));
  await mkdir(outside);
  await writeFile(path.join(project, 'src', 'a.ts'), 'alpha\n');
  await writeFile(path.join(project, 'src', 'b.ts'), 'béta ✓\n');
  await writeFile(path.join(project, 'vendor', 'v.ts'), 'vendored\n');
  await writeFile(path.join(project, '.env'), 'TOKEN=secret\n');
  await writeFile(path.join(outside, 'secret.txt'), 'SECRET\n');
  await symlink(path.join(outside, 'secret.txt'), path.join(project, 'src', 'leak.ts'));
  ctx = { projectDir: project, extraRoots: [], homeDir: path.join(base, 'home'), mode: 'default', rules: {} };
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const PATHS = ['src/a.ts', '.env', 'src/leak.ts', 'vendor/v.ts', 'src/b.ts', 'src/missing.ts'];

describe('judgeReadMany', () => {
  it('reads what the policy allows and skips the rest with its reason, never reading it', async () => {
    const { result, allowed } = await judgeReadMany(PATHS, { ...ctx, rules: { deny: ['Grep(vendor/**)'] } });
    expect(allowed).toBe(3);
    expect(result.files).toEqual([
      { path: 'src/a.ts', content: 'alpha\n', mtimeMs: expect.any(Number) },
      { path: 'src/b.ts', content: 'béta ✓\n', mtimeMs: expect.any(Number) },
    ]);
    const reasons = Object.fromEntries(result.skipped.map((s) => [s.path, s.reason]));
    expect(Object.keys(reasons).sort()).toEqual(['.env', 'src/leak.ts', 'src/missing.ts', 'vendor/v.ts']);
    expect(reasons['.env']).toMatch(/sensitive file/);
    expect(reasons['src/leak.ts']).toMatch(/outside the project/);
    expect(reasons['vendor/v.ts']).toMatch(/Grep\(vendor\/\*\*\)/);
    expect(reasons['src/missing.ts']).toMatch(/not found/);
    expect(JSON.stringify(result)).not.toMatch(/SECRET|TOKEN/);
  });

  it('packs the same contents into one buffer when asked', async () => {
    const { result } = await judgeReadMany(PATHS, ctx, { packed: true });
    expect(result.files).toEqual([]);
    const packed = result.packed;
    if (!packed) throw new Error('not packed');
    expect(packed.paths).toEqual(['src/a.ts', 'vendor/v.ts', 'src/b.ts']);
    const text = new TextDecoder().decode(packed.bytes);
    expect(text).toBe('alpha\nvendored\nbéta ✓\n');
    expect(packed.ends).toEqual([6, 15, 15 + Buffer.byteLength('béta ✓\n')]);
    expect(packed.mtimes.every((m) => m > 0)).toBe(true);
    expect(text).not.toMatch(/SECRET|TOKEN/);
  });

  it('defers only allowed paths past its byte budget, in order', async () => {
    const { result } = await judgeReadMany(PATHS, ctx, { budget: 1 });
    expect(result.files.map((f) => f.path)).toEqual(['src/a.ts']);
    expect(result.deferred).toEqual(['vendor/v.ts', 'src/b.ts', 'src/missing.ts']);
    expect(result.skipped.map((s) => s.path).sort()).toEqual(['.env', 'src/leak.ts']);
  });

  it('rejects a path that cannot be resolved, and keeps answering afterwards', async () => {
    await expect(judgeReadMany(['src/a\0.ts'], ctx)).rejects.toMatchObject({ code: 'invalid_input' });
    const { result } = await judgeReadMany(['src/a.ts'], ctx);
    expect(result.files[0]?.content).toBe('alpha\n');
  });
});
