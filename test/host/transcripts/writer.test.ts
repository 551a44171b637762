import { mkdtemp, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTranscript, startTranscript } from '../../../src/host/transcripts/writer.js';
import type { TaskOutput } from '../../../src/shared/task.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-transcript-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lines(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const output: TaskOutput = {
  agentId: 'a1',
  agentType: 'explore',
  status: 'completed',
  result: 'done',
  usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  model: 'offline',
  durationMs: 5,
  turns: 1,
  toolCalls: 0,
  transcriptPath: 'x',
};

function delta(i: number) {
  return { type: 'text-delta', agentId: 'a1', depth: 0, at: i, text: `chunk ${i}` };
}

describe('openTranscript', () => {
  it('keeps lines appended before the file is open, and writes them after the header', async () => {
    const t = startTranscript(path.join(dir, 'later'), 'a1', { fresh: true });
    for (let i = 0; i < 3; i++) t.append(delta(i));
    await t.ready;
    t.append(delta(3));
    await t.close(output);
    const all = await lines(t.path);
    expect(all.map((l) => l.type)).toEqual(['header', ...Array(4).fill('text-delta'), 'status']);
    expect(all.slice(1, 5).map((l) => l.text)).toEqual(['chunk 0', 'chunk 1', 'chunk 2', 'chunk 3']);
  });

  it('reports a file it cannot open through ready, flush and close, and never throws on append', async () => {
    const blocker = path.join(dir, 'file');
    await writeFile(blocker, 'x');
    const t = startTranscript(path.join(blocker, 'sub'), 'a1', { fresh: true });
    t.append(delta(1));
    await expect(t.ready).rejects.toMatchObject({ code: 'io_error' });
    await expect(t.flush()).rejects.toMatchObject({ code: 'io_error' });
    t.append(delta(2));
    await expect(t.close(output)).rejects.toMatchObject({ code: 'io_error' });
  });

  it("creates a fresh run's file in a missing directory, and appends to one that exists", async () => {
    const nested = path.join(dir, 'deep', 'er');
    const first = await openTranscript(nested, 'a1', { fresh: true });
    first.append(delta(1));
    await first.close(output);
    // A fresh open of an existing id (a clash) keeps what is there and starts a new segment.
    await appendFile(first.path, '{"type":"torn"');
    const second = await openTranscript(nested, 'a1', { fresh: true });
    await second.close(output);
    const text = await readFile(first.path, 'utf8');
    const all = text
      .split('\n')
      .filter((l) => l !== '' && !l.includes('"torn"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(all.map((l) => l.type)).toEqual(['header', 'text-delta', 'status', 'header', 'status']);
    expect(all[3]).toMatchObject({ type: 'header', resumed: true });
    expect(text).toContain('{"type":"torn"\n');
  });

  it('writes a header, the events in order and the status line', async () => {
    const t = await openTranscript(path.join(dir, 'nested'), 'a1', {
      clock: () => 7,
      header: { agentType: 'explore' },
    });
    expect(t.path).toBe(path.join(dir, 'nested', 'a1.jsonl'));
    for (let i = 0; i < 3; i++) t.append(delta(i));
    await t.close(output);
    const all = await lines(t.path);
    expect(all[0]).toEqual({
      agentType: 'explore',
      type: 'header',
      version: 1,
      agentId: 'a1',
      at: 7,
      resumed: false,
    });
    expect(all.slice(1, 4).map((l) => l.text)).toEqual(['chunk 0', 'chunk 1', 'chunk 2']);
    expect(all[4]).toEqual({ type: 'status', at: 7, status: 'completed', output });
    expect(t.closed).toBe(true);
  });

  it('accepts a bare status with an output of any shape', async () => {
    const t = await openTranscript(dir, 'a2');
    await t.close({ status: 'timeout', output: 'partial text' });
    expect((await lines(t.path)).at(-1)).toMatchObject({
      type: 'status',
      status: 'timeout',
      output: 'partial text',
    });
  });

  it('has everything appended on disk once flush resolves, and appends thousands of events a second', async () => {
    const t = await openTranscript(dir, 'fast');
    const n = 20_000;
    const start = performance.now();
    for (let i = 0; i < n; i++) t.append(delta(i));
    const appendMs = performance.now() - start;
    await t.flush();
    const flushedMs = performance.now() - start;
    const all = await lines(t.path);
    expect(all).toHaveLength(n + 1);
    expect(all[n]?.text).toBe(`chunk ${n - 1}`);
    // Appending only queues: far above thousands per second, even on a slow machine.
    expect(n / (appendMs / 1000)).toBeGreaterThan(50_000);
    expect(n / (flushedMs / 1000)).toBeGreaterThan(5_000);
    await t.close(output);
  });

  it('keeps every event a killed worker sent before the kill', async () => {
    const t = await openTranscript(dir, 'killed');
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       for (let i = 0; ; i++) parentPort.postMessage({ type: 'text-delta', agentId: 'killed', depth: 0, at: i, text: 'x'.repeat(i % 50) });`,
      { eval: true },
    );
    let received = 0;
    await new Promise<void>((resolve) => {
      worker.on('message', (event: object) => {
        t.append(event);
        received++;
        if (received === 3000) void worker.terminate().then(() => resolve());
      });
    });
    worker.removeAllListeners('message');
    await t.flush();
    const events = (await lines(t.path)).filter((l) => l.type === 'text-delta');
    expect(events.length).toBeGreaterThanOrEqual(3000);
    expect(events.map((e) => e.at)).toEqual(Array.from({ length: events.length }, (_, i) => i));
    await t.close({ status: 'crashed', output: null });
    expect((await lines(t.path)).at(-1)).toMatchObject({ type: 'status', status: 'crashed' });
  });

  it('ignores appends after close and closes once', async () => {
    const t = await openTranscript(dir, 'a3');
    const first = t.close(output);
    const second = t.close({ status: 'failed' });
    expect(second).toBe(first);
    await first;
    t.append(delta(1));
    await t.flush();
    const all = await lines(t.path);
    expect(all.map((l) => l.type)).toEqual(['header', 'status']);
  });

  it('turns a record it cannot serialise into an error line', async () => {
    const t = await openTranscript(dir, 'a4');
    const circular: Record<string, unknown> = { type: 'notice' };
    circular.self = circular;
    t.append(circular);
    t.append({ type: 'usage', big: 10n });
    await t.close(output);
    const types = (await lines(t.path)).map((l) => l.type);
    expect(types).toEqual(['header', 'transcript-error', 'transcript-error', 'status']);
  });

  it('appends a new segment on reopen, ending a torn last line first', async () => {
    const file = path.join(dir, 'resumed.jsonl');
    await writeFile(
      file,
      `${JSON.stringify({ type: 'header', version: 1, agentId: 'resumed', at: 1, resumed: false })}\n`,
    );
    await appendFile(file, '{"type":"text-delta","tex');
    const t = await openTranscript(dir, 'resumed');
    t.append(delta(9));
    await t.close(output);
    const raw = (await readFile(file, 'utf8')).split('\n');
    expect(raw[1]).toBe('{"type":"text-delta","tex');
    expect(JSON.parse(raw[2] ?? '')).toMatchObject({ type: 'header', resumed: true });
    expect(JSON.parse(raw[3] ?? '')).toMatchObject({ text: 'chunk 9' });
  });

  it.each(['../escape', 'a/b', '', '.hidden', 'x'.repeat(300), 'a\0b'])(
    'refuses the agent id %j',
    async (id) => {
      await expect(openTranscript(dir, id)).rejects.toMatchObject({ code: 'invalid_input' });
    },
  );

  it('rejects with io_error when the directory cannot be created', async () => {
    const blocker = path.join(dir, 'file');
    await writeFile(blocker, '');
    await expect(openTranscript(path.join(blocker, 'sub'), 'a1')).rejects.toMatchObject({ code: 'io_error' });
  });
});
