import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAuditLog,
  redactSecrets,
  summarizeArgs,
  type AuditEntry,
} from '../../../src/host/capabilities/audit.js';
import { GENESIS, hashLine } from '../../../src/host/records/audit-chain.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-audit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    agentId: 'a1',
    agentType: 'explore',
    runId: 'r1',
    capability: 'fs.read',
    args: { path: 'src/a.ts' },
    decision: 'allow',
    reason: 'reads are allowed',
    durationMs: 1.23456,
    ok: true,
    ...overrides,
  };
}

describe('createAuditLog', () => {
  it('writes one JSONL line per call, in order, into a new directory', async () => {
    const file = path.join(dir, 'nested', 'deeper', 'audit.jsonl');
    const log = await createAuditLog(file, { clock: () => 1000 });
    log.record(entry());
    log.record(
      entry({
        capability: 'exec.run',
        args: { command: 'npm test' },
        decision: 'ask',
        approval: 'deny',
        ok: false,
        errorCode: 'approval_denied',
      }),
    );
    await log.close();
    const [first, second] = await lines(file);
    const firstLine = (await readFile(file, 'utf8')).split('\n')[0] ?? '';
    expect(first).toEqual({
      prev: GENESIS,
      at: 1000,
      runId: 'r1',
      agentId: 'a1',
      agentType: 'explore',
      capability: 'fs.read',
      args: { path: 'src/a.ts' },
      decision: 'allow',
      reason: 'reads are allowed',
      durationMs: 1.235,
      ok: true,
    });
    expect(second).toMatchObject({
      prev: hashLine(Buffer.from(firstLine)),
      capability: 'exec.run',
      decision: 'ask',
      approval: 'deny',
      ok: false,
      errorCode: 'approval_denied',
    });
  });

  it('never logs file content, only the path and byte count', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const log = await createAuditLog(file);
    log.record(entry({ capability: 'fs.write', args: { path: 'a.txt', content: 'TOP SECRET ünïcode' } }));
    await log.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('TOP SECRET');
    expect((await lines(file))[0]?.args).toEqual({
      path: 'a.txt',
      bytes: Buffer.byteLength('TOP SECRET ünïcode'),
    });
  });

  it('loses nothing buffered when closed, even thousands of lines', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const log = await createAuditLog(file, { flushIntervalMs: 10_000 });
    for (let i = 0; i < 5000; i++) log.record(entry({ args: { path: `f${i}` } }));
    await log.close();
    const all = await lines(file);
    expect(all).toHaveLength(5000);
    expect(all[4999]?.args).toEqual({ path: 'f4999' });
  });

  it('writes within the flush interval without a close', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const log = await createAuditLog(file, { flushIntervalMs: 5 });
    log.record(entry());
    await new Promise((r) => setTimeout(r, 60));
    await log.flush();
    expect(await lines(file)).toHaveLength(1);
    await log.close();
  });

  it('still writes lines recorded after close', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const log = await createAuditLog(file);
    await log.close();
    log.record(entry());
    await log.flush();
    expect(await lines(file)).toHaveLength(1);
  });

  it('reports every failed write and keeps going, keeping the lines for the next try', async () => {
    const file = path.join(dir, 'is-a-dir');
    await mkdir(file);
    const errors: Error[] = [];
    const log = await createAuditLog(file, { onError: (e) => errors.push(e) });
    log.record(entry());
    await log.close();
    expect(errors).toHaveLength(1);
    // Recorded after close: written at once (a second failure), then flushed again (a third).
    log.record(entry());
    await log.flush();
    expect(errors).toHaveLength(3);
  });

  it('rejects with io_error when the directory cannot be made', async () => {
    const blocker = path.join(dir, 'file');
    await writeFile(blocker, 'x');
    await expect(createAuditLog(path.join(blocker, 'sub', 'audit.jsonl'))).rejects.toMatchObject({
      code: 'io_error',
    });
  });

  it('survives an entry it cannot serialise', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const log = await createAuditLog(file);
    log.record(entry({ rule: 10n as unknown as string }));
    await log.close();
    expect((await lines(file))[0]?.error).toContain('unloggable');
  });

  it('writes an entry as it was when recorded: its arguments summarised and its time read then', async () => {
    const file = path.join(dir, 'audit.jsonl');
    let now = 1000;
    const log = await createAuditLog(file, { clock: () => now, flushIntervalMs: 10_000 });
    const args = { path: 'src/first.ts' };
    log.record(entry({ args }));
    log.record(entry({ capability: 'mcp.call', args: 'mcp__s__t GITHUB_TOKEN=ghp_123secret' }));
    args.path = 'src/changed-later.ts';
    now = 5000;
    await log.flush();
    const [first, second] = await lines(file);
    expect(first).toMatchObject({ at: 1000, args: { path: 'src/first.ts' } });
    // Lines are formatted when written: the caller's summary is masked all the same.
    expect(JSON.stringify(second)).not.toContain('ghp_123secret');
    await log.close();
  });

  it('writes once 256 entries wait, without waiting for the interval', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const log = await createAuditLog(file, { flushIntervalMs: 60_000 });
    for (let i = 0; i < 255; i++) log.record(entry({ args: { path: `f${i}` } }));
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    log.record(entry({ args: { path: 'f255' } }));
    expect(await lines(file)).toHaveLength(256);
    await log.close();
  });

  it('leaves a line for an entry whose arguments cannot be summarised', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const log = await createAuditLog(file);
    const args = Object.defineProperty({}, 'path', {
      enumerable: true,
      get() {
        throw new Error('no reading this');
      },
    });
    log.record(entry({ args }));
    log.record(entry());
    await log.close();
    const [bad, good] = await lines(file);
    expect(bad?.error).toBe('unloggable entry: no reading this');
    expect(good).toMatchObject({ capability: 'fs.read', args: { path: 'src/a.ts' } });
  });
});

describe('summarizeArgs', () => {
  it.each([
    [
      'exec.run',
      { command: 'curl -H "Authorization: Bearer abc123" --token=xyz https://u:pw@host/x' },
      'abc123',
    ],
    ['exec.run', { command: 'GITHUB_TOKEN=ghp_123 gh pr list' }, 'ghp_123'],
    ['web.fetch', { url: 'https://user:pw@example.com/a?key=SECRET#frag' }, 'SECRET'],
    [
      'agents.task',
      { subagent_type: 'explore', prompt: 'the whole PROMPT text', description: 'd' },
      'PROMPT',
    ],
    ['mcp.call', { tool: 'mcp__s__t', input: { body: 'CONTENT' } }, 'CONTENT'],
  ])('%s keeps secrets and content out', (cap, args, secret) => {
    expect(JSON.stringify(summarizeArgs(cap, args))).not.toContain(secret);
  });

  it('keeps a caller summary short and masked', () => {
    expect(summarizeArgs('exec.run', 'psql --password=pw')).toEqual({ summary: 'psql --password=***' });
  });

  it('keeps what identifies the call', () => {
    expect(summarizeArgs('web.fetch', { url: 'https://example.com/a?b=c' })).toEqual({
      url: 'https://example.com/a',
    });
    expect(summarizeArgs('fs.readMany', { paths: ['a', 'b', 'c', 'd', 'e', 'f'] })).toEqual({
      count: 6,
      paths: ['a', 'b', 'c', 'd', 'e'],
    });
    expect(summarizeArgs('exec.run', { command: 'x'.repeat(1000) }).command).toHaveLength(
      300 + '… (1000 chars)'.length,
    );
    expect(summarizeArgs('fs.read', null)).toEqual({});
  });

  it('masks common credential shapes', () => {
    expect(redactSecrets('mysql --password=hunter2 -u root')).toBe('mysql --password=*** -u root');
    expect(redactSecrets('API_KEY="a b" run')).toBe('API_KEY=*** run');
  });
});
