// One refused race must not switch the race check off. A checked directory swapped for a symlink
// into a directory whose real path is longer than PATH_MAX makes readlink(/proc/<pid>/fd/N) fail
// (ENAMETOOLONG): that read is refused, and every later one is still checked, on the I/O threads
// (the batch code, judgeReadMany and globRead, racing a real swapping process) and on the event
// loop (fs.read and fs.write).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globRead } from '../../../src/host/capabilities/fs/glob-read.js';
import type { JudgeContext } from '../../../src/host/capabilities/fs/judge-read-sync.js';
import { readBatchSync } from '../../../src/host/capabilities/fs/read-batch-sync.js';
import { judgeReadMany } from '../../../src/host/capabilities/fs/read-many.js';
import { readText } from '../../../src/host/capabilities/fs/read.js';
import { resolvePathSync } from '../../../src/host/capabilities/fs/resolve-sync.js';
import { writeAtomic } from '../../../src/host/capabilities/fs/write.js';
import type { FsReadManyResult } from '../../../src/shared/capabilities.js';
import { makeDeepDir, startSwapper, swap, unswap } from '../../support/swap-race.js';

const SECRET = 'OUTSIDE-SECRET';
const RACE_MS = 2500;
let base: string;
let project: string;
let outside: string;
let deepRel: string;
let ctx: JudgeContext;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cadre-poison-')));
  project = path.join(base, 'p');
  outside = path.join(base, 'outside');
  for (const d of ['x', 'y', 'z']) fs.mkdirSync(path.join(project, d), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(project, 'x', 'f.txt'), 'inside x\n');
  fs.writeFileSync(path.join(project, 'y', 'data.txt'), 'inside y\n');
  fs.writeFileSync(path.join(outside, 'data.txt'), `${SECRET}\n`);
  deepRel = makeDeepDir(project);
  ctx = { projectDir: project, extraRoots: [], homeDir: path.join(base, 'home'), mode: 'default', rules: {} };
});
afterEach(() => {
  execFileSync('rm', ['-rf', base]);
});

const UNCONFIRMED = /could not be confirmed .*\(ENAMETOOLONG\); refused/;
const RACED = /changed between the permission check and the open/;

function text(result: FsReadManyResult): string {
  return JSON.stringify(result) + new TextDecoder().decode(result.packed?.bytes ?? new Uint8Array(0));
}

describe('the batch read (I/O thread code)', () => {
  it('refuses a directory it cannot read back, and keeps refusing swapped directories after', () => {
    const x = resolvePathSync('x/f.txt', project).real;
    const y = resolvePathSync('y/data.txt', project).real;
    swap(project, 'x', deepRel);
    const first = readBatchSync([x], 1 << 20, 1 << 24);
    expect(first.read).toEqual([]);
    expect(first.skipped[0]?.reason).toMatch(UNCONFIRMED);
    swap(project, 'y', outside);
    const second = readBatchSync([y], 1 << 20, 1 << 24);
    expect(new TextDecoder().decode(second.bytes)).not.toContain(SECRET);
    expect(second.skipped[0]?.reason).toMatch(RACED);
    unswap(project, 'y');
    unswap(project, 'x');
    expect(new TextDecoder().decode(readBatchSync([x, y], 1 << 20, 1 << 24).bytes)).toBe(
      'inside x\ninside y\n',
    );
  });
});

describe('the I/O threads, racing a swapping process', () => {
  /**
   * Calls `call` while another process flips x between itself and a symlink into the deep directory
   * (each such read that lands there poisoned the old check) and y between itself and a symlink to
   * the outside: the outside file never comes back, and both kinds of refusal keep happening.
   */
  async function race(call: (k: number) => Promise<FsReadManyResult>): Promise<void> {
    const swapper = await startSwapper(project, { x: deepRel, y: outside });
    let calls = 0;
    let unconfirmed = 0;
    let raced = 0;
    try {
      // At least RACE_MS; on a loaded machine the race may need longer to hit both windows, so it
      // goes on (up to four times as long) until both kinds of refusal have been seen.
      const start = performance.now();
      const going = () => {
        const t = performance.now() - start;
        return t < RACE_MS || ((unconfirmed === 0 || raced === 0) && t < 4 * RACE_MS);
      };
      while (going()) {
        // A path resolved while it is too long to resolve fails the call (not a leak); the race goes on.
        const result = await call(calls++).catch(() => undefined);
        if (!result) continue;
        expect(text(result)).not.toContain(SECRET);
        if (result.skipped.some((s) => UNCONFIRMED.test(s.reason))) unconfirmed++;
        else if (result.skipped.some((s) => RACED.test(s.reason))) raced++;
      }
    } finally {
      await swapper.stop();
    }
    expect(calls).toBeGreaterThan(50);
    // The check refused reads it could not confirm, and went on refusing swapped directories.
    expect(unconfirmed).toBeGreaterThan(0);
    expect(raced).toBeGreaterThan(0);
  }

  it('judgeReadMany never returns the outside file', async () => {
    await race(
      async (k) => (await judgeReadMany([k % 2 ? 'x/f.txt' : 'y/data.txt'], ctx, { packed: true })).result,
    );
  });

  it('globRead (what Grep sends) never returns the outside file', async () => {
    const walk = { projectDir: project, sort: 'path' as const };
    await race(async () => (await globRead(project, '{x,y}/*', walk, ctx, { packed: true })).result);
  });
});

describe('fs.read and fs.write on the event loop', () => {
  it('refuse a directory they cannot read back, and keep refusing swapped directories after', async () => {
    const x = resolvePathSync('x/f.txt', project).real;
    const y = resolvePathSync('y/data.txt', project).real;
    const z = resolvePathSync('z/new.txt', project).real;
    swap(project, 'x', deepRel);
    await expect(readText(x)).rejects.toMatchObject({ code: 'permission_denied', message: UNCONFIRMED });
    await expect(writeAtomic(x, 'over\n')).rejects.toMatchObject({ code: 'permission_denied' });
    swap(project, 'y', outside);
    await expect(readText(y)).rejects.toMatchObject({ code: 'permission_denied', message: RACED });
    swap(project, 'z', outside);
    await expect(writeAtomic(z, 'written by the agent\n')).rejects.toMatchObject({
      code: 'permission_denied',
    });
    expect(fs.readdirSync(outside)).toEqual(['data.txt']);
    for (const name of ['x', 'y', 'z']) unswap(project, name);
    expect((await readText(y)).content).toBe('inside y\n');
    await writeAtomic(z, 'fine\n');
    expect(fs.readFileSync(path.join(project, 'z', 'new.txt'), 'utf8')).toBe('fine\n');
  });
});
