// The transcript writer at the edges: more queued text than one JavaScript string can hold, a line
// over the line cap, and a file whose writes fail. None of them may throw out of the write loop,
// spin it, or leave flush() unsettled.
import { constants } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_TRANSCRIPT_LINE_BYTES } from '../../../src/host/transcripts/serialize.js';
import { openTranscript } from '../../../src/host/transcripts/writer.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-transcript-limits-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each line's type and length, read as a stream (the file may be larger than one string). */
async function lineSummary(file: string): Promise<{ type: string; length: number }[]> {
  const out: { type: string; length: number }[] = [];
  let head = '';
  let length = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 }) as AsyncIterable<Buffer>) {
    let at = 0;
    for (let nl = chunk.indexOf(10, at); ; nl = chunk.indexOf(10, at)) {
      const end = nl === -1 ? chunk.length : nl;
      if (head.length < 200) head += chunk.subarray(at, Math.min(end, at + 200)).toString();
      length += end - at;
      if (nl === -1) break;
      out.push({ type: /"type":"([a-z-]+)"/.exec(head)?.[1] ?? '?', length });
      head = '';
      length = 0;
      at = nl + 1;
    }
  }
  return out;
}

describe('transcript writer limits', () => {
  it('writes more queued text than the longest string V8 can make, in order, and settles', async () => {
    const t = await openTranscript(dir, 'huge');
    // Nine lines of 60 M characters: together past the string-length limit, each under the line cap.
    const text = 'x'.repeat(60_000_000);
    const count = Math.ceil(constants.MAX_STRING_LENGTH / text.length) + 1;
    for (let i = 0; i < count; i++) t.append({ type: 'text-delta', agentId: 'huge', depth: 0, at: i, text });
    await t.close({ status: 'completed', output: null });
    const lines = await lineSummary(t.path);
    expect(lines.map((l) => l.type)).toEqual([
      'header',
      ...Array<string>(count).fill('text-delta'),
      'status',
    ]);
    for (const line of lines.slice(1, -1)) expect(line.length).toBeGreaterThan(text.length);
    expect((await stat(t.path)).size).toBeGreaterThan(constants.MAX_STRING_LENGTH);
  }, 60_000);

  it('keeps a record over the line cap, and the status line, with their long strings cut', async () => {
    const t = await openTranscript(dir, 'long');
    const huge = 'y'.repeat(MAX_TRANSCRIPT_LINE_BYTES + 10);
    t.append({ type: 'agent-end', output: { status: 'completed', result: huge } });
    t.append({ type: 'notice', message: 'after' });
    await t.close({ status: 'completed', output: { result: huge } });
    const lines = await lineSummary(t.path);
    expect(lines.map((l) => l.type)).toEqual(['header', 'agent-end', 'notice', 'status']);
    expect(lines[1]?.length).toBeLessThan(2 * 1024 * 1024);
    const all = (await readFile(t.path, 'utf8')).trimEnd().split('\n');
    const [end, status] = [all[1], all.at(-1)];
    const parsed = JSON.parse(end ?? '') as { transcriptTruncated: boolean; output: { result: string } };
    expect(parsed.transcriptTruncated).toBe(true);
    expect(parsed.output.result).toMatch(/… \[\d+ more characters not kept in the transcript\]$/);
    expect(JSON.parse(status ?? '')).toMatchObject({
      type: 'status',
      status: 'completed',
      transcriptTruncated: true,
    });
  });

  it('reports a file whose writes fail, stops writing, and never spins', async () => {
    // Writes to /dev/full fail with ENOSPC, as on a full disk.
    await symlink('/dev/full', path.join(dir, 'full.jsonl'));
    const t = await openTranscript(dir, 'full');
    for (let i = 0; i < 1000; i++) t.append({ type: 'text-delta', text: `piece ${i}` });
    await expect(t.flush()).rejects.toMatchObject({
      code: 'io_error',
      message: expect.stringContaining(path.join(dir, 'full.jsonl')),
    });
    t.append({ type: 'notice', message: 'ignored after a failure' });
    await expect(t.close({ status: 'failed', output: null })).rejects.toMatchObject({ code: 'io_error' });
    // An idle writer: nothing is scheduled, so the event loop is free (a spinning loop would
    // keep re-running the pump and this timer would fire late).
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
