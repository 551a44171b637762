// The audit log's hash chain: what an append writes, and that every kind of tampering (an edited,
// removed, inserted or reordered line, a cut end, a lost checkpoint) shows at its line, while a
// write torn by a crash and appends from several processes at once do not.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, truncate, unlink, writeFile, appendFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendChained, GENESIS, hashLine, readHead } from '../../../src/host/records/audit-chain.js';
import { verifyAuditLog } from '../../../src/host/records/audit-verify.js';

let dir: string;
let log: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-chain-'));
  log = path.join(dir, 'audit.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bodies = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ at: from + i, capability: 'fs.read', n: from + i }));

async function writeLog(lines = 6): Promise<string[]> {
  const state = appendChained(log, bodies(1, 3), undefined);
  appendChained(log, bodies(4, lines - 3), state);
  return (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '');
}

async function rewrite(lines: string[]): Promise<void> {
  await writeFile(log, lines.map((l) => `${l}\n`).join(''));
}

describe('appendChained', () => {
  it('puts the hash of the previous line first on every line and keeps a checkpoint', async () => {
    const lines = await writeLog();
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ prev: GENESIS, n: 1 });
    for (let i = 1; i < lines.length; i++) {
      expect(lines[i]?.startsWith(`{"prev":"${hashLine(Buffer.from(lines[i - 1] ?? ''))}",`)).toBe(true);
    }
    const size = (await readFile(log)).length;
    expect(readHead(log)).toEqual({ bytes: size, last: hashLine(Buffer.from(lines[5] ?? '')) });
    expect(await verifyAuditLog(log)).toMatchObject({ ok: true, lines: 6, warnings: [] });
  });

  it('chains onto a log another writer appended to meanwhile', async () => {
    const state = appendChained(log, bodies(1, 2), undefined);
    appendChained(log, bodies(3, 2), undefined); // another process: no state of its own
    appendChained(log, bodies(5, 2), state); // the first again: its state is stale
    expect(await verifyAuditLog(log)).toMatchObject({ ok: true, lines: 6 });
  });

  it('ends a torn last line and chains over it: verified, with a warning', async () => {
    appendChained(log, bodies(1, 2), undefined);
    await appendFile(log, '{"prev":"abc","at":3,"capab'); // a crash mid-write
    appendChained(log, bodies(4, 2), undefined);
    const verdict = await verifyAuditLog(log);
    expect(verdict).toMatchObject({ ok: true, lines: 5 });
    expect(verdict.warnings.join()).toMatch(/line 3 is an incomplete record/);
  });

  it('keeps the chain whole when two processes append at once', async () => {
    const module = path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      '../../../dist/host/records/audit-chain.js',
    );
    const writer = (id: number) =>
      new Promise<number | null>((resolve) => {
        const code = `const { appendChained } = await import(${JSON.stringify(module)});
          let s; for (let i = 0; i < 200; i++) s = appendChained(${JSON.stringify(log)}, [JSON.stringify({ w: ${id}, i })], s);`;
        spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: 'ignore' }).on(
          'close',
          resolve,
        );
      });
    expect(await Promise.all([writer(1), writer(2), writer(3)])).toEqual([0, 0, 0]);
    expect(await verifyAuditLog(log)).toMatchObject({ ok: true, lines: 600 });
  }, 60_000);
});

describe('verifyAuditLog finds tampering at its line', () => {
  it('an edited line: the next line no longer carries its hash', async () => {
    const lines = await writeLog();
    lines[2] = (lines[2] ?? '').replace('"fs.read"', '"fs.list"');
    await rewrite(lines);
    expect(await verifyAuditLog(log)).toMatchObject({
      ok: false,
      line: 4,
      reason: expect.stringMatching(/line 4 does not carry the hash of line 3: line 3 was changed/),
    });
  });

  it('a removed line in the middle', async () => {
    const lines = await writeLog();
    lines.splice(3, 1);
    await rewrite(lines);
    expect(await verifyAuditLog(log)).toMatchObject({ ok: false, line: 4 });
  });

  it('a removed first line', async () => {
    const lines = await writeLog();
    await rewrite(lines.slice(1));
    expect(await verifyAuditLog(log)).toMatchObject({
      ok: false,
      line: 1,
      reason: expect.stringMatching(/line 1 does not start the chain/),
    });
  });

  it('an inserted line, even one that copies the format', async () => {
    const lines = await writeLog();
    const forged = `{"prev":"${hashLine(Buffer.from(lines[1] ?? ''))}","at":0,"capability":"fs.read"}`;
    lines.splice(2, 0, forged);
    await rewrite(lines);
    expect(await verifyAuditLog(log)).toMatchObject({ ok: false, line: 4 });
  });

  it('two lines swapped', async () => {
    const lines = await writeLog();
    [lines[1], lines[2]] = [lines[2] ?? '', lines[1] ?? ''];
    await rewrite(lines);
    expect(await verifyAuditLog(log)).toMatchObject({ ok: false, line: 2 });
  });

  it('lines cut from the end (the checkpoint says how long it was)', async () => {
    await writeLog();
    const full = (await readFile(log, 'utf8')).split('\n');
    await truncate(log, Buffer.byteLength(full.slice(0, 4).join('\n') + '\n'));
    expect(await verifyAuditLog(log)).toMatchObject({
      ok: false,
      line: 5,
      reason: expect.stringMatching(/ends at line 4 .* lines were removed from its end/),
    });
  });

  it('the last line changed (nothing follows it, the checkpoint has its hash)', async () => {
    const lines = await writeLog();
    lines[5] = (lines[5] ?? '').replace('"n":6', '"n":7');
    await rewrite(lines);
    expect(await verifyAuditLog(log)).toMatchObject({
      ok: false,
      line: 6,
      reason: expect.stringMatching(/line 6 is not the line cadre last wrote there/),
    });
  });

  it('the checkpoint deleted', async () => {
    await writeLog();
    await unlink(`${log}.head`);
    expect(await verifyAuditLog(log)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/checkpoint .* is missing/),
    });
  });

  it('a line replaced by garbage', async () => {
    const lines = await writeLog();
    lines[2] = 'not json at all';
    await rewrite(lines);
    expect(await verifyAuditLog(log)).toMatchObject({ ok: false, line: 4 });
  });
});

describe('a lock held by another process', () => {
  it('makes a flush wait without blocking the event loop, and the lines go out once it is free', async () => {
    const { createAuditLog } = await import('../../../src/host/capabilities/audit.js');
    const audit = await createAuditLog(log, { flushIntervalMs: 1 });
    await writeFile(`${log}.lock`, String(process.ppid)); // a live process, not this one
    audit.record({
      agentId: 'a',
      capability: 'fs.read',
      args: {},
      decision: 'allow',
      reason: 'r',
      durationMs: 1,
      ok: true,
    });
    const flushed = audit.flush();
    // The event loop keeps turning while the lock is held: a 5 ms timer fires about 60 times in
    // 300 ms when nothing blocks (a loaded machine delays timers, hence the margin); a flush that
    // blocked in waits of 50 ms would let it fire at most 6.
    const ticks = await new Promise<number>((resolve) => {
      let n = 0;
      const t = setInterval(() => n++, 5);
      setTimeout(() => (clearInterval(t), resolve(n)), 300);
    });
    expect(ticks).toBeGreaterThan(10);
    await expect(readFile(log, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await unlink(`${log}.lock`);
    await flushed;
    expect(await verifyAuditLog(log)).toMatchObject({ ok: true, lines: 1 });
    await audit.close();
  });
});
