// The walks behind Glob and Grep run on I/O threads every run shares, over trees and .gitignore
// files a model can write. A walk stops when its run ends (and the thread answers another run at
// once), at its time budget, and at its work cap with .gitignore rule tests counted; .gitignore
// files are read and parsed only so far; a thread abandoned in a stall hands the requests queued
// behind it to a new thread.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globRead } from '../../../src/host/capabilities/fs/glob-read.js';
import { glob } from '../../../src/host/capabilities/fs/glob.js';
import { IoPool, ioPoolStats } from '../../../src/host/capabilities/fs/io-pool.js';
import type { JudgeContext } from '../../../src/host/capabilities/fs/judge-read-sync.js';
import { judgeReadMany } from '../../../src/host/capabilities/fs/read-many.js';

let base: string;
let hostile: string;
let victim: string;

/** Rules that match nothing: every file of the hostile tree is tested against all of them. */
const rules = (n: number) => Array.from({ length: n }, (_, i) => `nomatch-${i}-*.zzz`).join('\n');
const ctxOf = (projectDir: string): JudgeContext => ({
  projectDir,
  extraRoots: [],
  homeDir: path.join(base, 'home'),
  mode: 'default',
  rules: {},
});
/** Options under which only cancelling (or the stall watchdog) can stop a walk of the hostile tree. */
const unbounded = () => ({
  projectDir: hostile,
  sort: 'path' as const,
  scanLimit: 1e12,
  timeBudgetMs: 600_000,
});

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-walk-limits-')));
  hostile = path.join(base, 'hostile');
  victim = path.join(base, 'victim');
  await mkdir(path.join(hostile, 'src'), { recursive: true });
  await mkdir(victim);
  await writeFile(path.join(victim, 'a.txt'), 'hello\n');
  // 4,000 files, each tested against 10,000 rules: many seconds of walking.
  await writeFile(path.join(hostile, '.gitignore'), rules(10_000));
  for (let i = 0; i < 4000; i += 500)
    await Promise.all(
      Array.from({ length: 500 }, (_, k) => writeFile(path.join(hostile, 'src', `f${i + k}.txt`), 'x\n')),
    );
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Waits until `check` holds (polling), failing after `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a walk whose run ends', () => {
  it('stops: globRead rejects at once, and another run is answered within a second', async () => {
    const run = new AbortController();
    const settled: number[] = [];
    const walk = () =>
      globRead(hostile, '**/*', unbounded(), ctxOf(hostile), { signal: run.signal }).then(
        () => 'finished',
        (error: { code?: string }) => {
          settled.push(performance.now());
          return error.code;
        },
      );
    // One walk per I/O thread (the pool starts a second thread once the first has been busy a while).
    const first = walk();
    await until(() => ioPoolStats().busy === 1, 5000);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const second = walk();
    await until(() => ioPoolStats().busy === 2, 5000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const aborted = performance.now();
    run.abort();
    const read = await judgeReadMany(['a.txt'], ctxOf(victim));
    const answered = performance.now() - aborted;
    expect(read.result.files.map((f) => f.content)).toEqual(['hello\n']);
    expect(answered).toBeLessThan(1000);
    expect(await Promise.all([first, second])).toEqual(['cancelled', 'cancelled']);
    for (const at of settled) expect(at - aborted).toBeLessThan(100);
    await until(() => ioPoolStats().busy === 0, 1000);
  });

  it('is not started when the run has already ended, and fs.glob stops too', async () => {
    const ended = new AbortController();
    ended.abort();
    await expect(
      globRead(hostile, '**/*', unbounded(), ctxOf(hostile), { signal: ended.signal }),
    ).rejects.toMatchObject({ code: 'cancelled' });
    await expect(glob(hostile, '**/*', unbounded(), ended.signal)).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(ioPoolStats().busy).toBe(0);
    const run = new AbortController();
    const listing = glob(hostile, '**/*', unbounded(), run.signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const aborted = performance.now();
    run.abort();
    await expect(listing).rejects.toMatchObject({ code: 'cancelled' });
    expect(performance.now() - aborted).toBeLessThan(500);
  });
});

describe('a walk that goes on', () => {
  it('stops at its time budget with what it found, and says so', async () => {
    const started = performance.now();
    const result = await glob(hostile, '**/*', { ...unbounded(), timeBudgetMs: 300 });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.truncated).toBe(true);
    expect(result.notices).toEqual([expect.stringMatching(/stopped after 0.3 s/)]);
  });

  it('counts .gitignore rule tests toward its work cap', async () => {
    // 4,000 entries alone are far below the cap; 40 million rule tests are not. With no time budget
    // to speak of, only the work cap can stop the walk (a wall-clock bound here failed under load).
    const result = await glob(hostile, '**/*', { ...unbounded(), scanLimit: 100_000 });
    expect(result.truncated).toBe(true);
    expect((result.notices ?? []).join('\n')).not.toMatch(/the walk stopped after/);
    expect(result.files.length).toBeLessThan(4000);
  });
});

describe('a .gitignore', () => {
  it('is read up to 1 MiB, whatever its size (a sparse 100 MB file)', async () => {
    const tree = path.join(base, 'sparse');
    await mkdir(tree);
    await writeFile(path.join(tree, 'a.txt'), 'x\n');
    execFileSync('truncate', ['-s', '100M', path.join(tree, '.gitignore')]);
    const started = performance.now();
    const result = await glob(tree, '*.txt', { projectDir: tree });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.files).toEqual(['a.txt']);
    expect(result.notices).toEqual([expect.stringMatching(/\.gitignore is over 1048576 bytes/)]);
  });

  it('gives its first 10,000 rules, and a notice for the rest', async () => {
    const tree = path.join(base, 'many-rules');
    await mkdir(tree);
    await writeFile(path.join(tree, '.gitignore'), `early.txt\n${rules(10_000)}\nlate.txt\n`);
    for (const name of ['early.txt', 'late.txt', 'kept.txt']) await writeFile(path.join(tree, name), 'x\n');
    const result = await glob(tree, '*.txt', { projectDir: tree, sort: 'path' });
    expect(result.files).toEqual(['kept.txt', 'late.txt']);
    expect(result.notices).toEqual([
      expect.stringMatching(/\.gitignore has over 10000 rules; 2 of them were not used/),
    ]);
  });
});

describe('an I/O thread abandoned in a stall', () => {
  it('fails the request it is stuck in and hands the ones queued behind it to a new thread', async () => {
    // A pool of its own that abandons a thread after 400 ms without an answer (the host's: 30 s).
    const pool = new IoPool({ stallMs: 400 });
    // A walk with no budget and no parts to post looks stuck; fill both threads with one each.
    const first = glob(hostile, '**/*', unbounded(), undefined, pool);
    await until(() => pool.stats().busy === 1, 5000);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const second = glob(hostile, '**/*', unbounded(), undefined, pool);
    await until(() => pool.stats().busy === 2, 5000);
    // Another run's read, queued behind one of them.
    const queued = judgeReadMany(['a.txt'], ctxOf(victim), {}, pool);
    await expect(first).rejects.toMatchObject({ code: 'io_error' });
    await expect(second).rejects.toMatchObject({ code: 'io_error' });
    const read = await queued;
    expect(read.result.files.map((f) => f.content)).toEqual(['hello\n']);
  });
});
