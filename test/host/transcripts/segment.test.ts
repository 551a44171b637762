// Opening a transcript segment on its own: a new file gets just the header; a resumed file whose
// last line was torn gets a newline first; the header's own fields cannot be overridden; a file
// that cannot be opened is an `io_error` naming it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSegment } from '../../../src/host/transcripts/segment.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-segment-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spec = (file: string, over: Record<string, unknown> = {}) => ({
  dir,
  file: path.join(dir, file),
  agentId: 'explore-1234abcd',
  startedAt: 42,
  clock: () => 7,
  ...over,
});

describe('openSegment', () => {
  it('creates a fresh file and leads with a header whose own fields win over the extra ones', async () => {
    const segment = await openSegment(
      spec('a.jsonl', { fresh: true, header: { type: 'forged', agentId: 'other', agentType: 'explore' } }),
    );
    await segment.handle.close();
    expect(segment.lead).toHaveLength(1);
    const header = JSON.parse(String(segment.lead[0])) as Record<string, unknown>;
    expect(header).toMatchObject({
      type: 'header',
      agentId: 'explore-1234abcd',
      at: 42,
      resumed: false,
      agentType: 'explore',
    });
    expect(await readFile(path.join(dir, 'a.jsonl'), 'utf8')).toBe('');
  });

  it('reopens an existing file as a resumed segment, ending a torn last line first', async () => {
    await writeFile(path.join(dir, 'b.jsonl'), '{"type":"header"}\n{"type":"text-del');
    const torn = await openSegment(spec('b.jsonl', { fresh: true }));
    await torn.handle.close();
    expect(torn.lead[0]).toBe('\n');
    expect(JSON.parse(String(torn.lead[1]))).toMatchObject({ resumed: true });

    await writeFile(path.join(dir, 'c.jsonl'), '{"type":"header"}\n');
    const whole = await openSegment(spec('c.jsonl'));
    await whole.handle.close();
    expect(whole.lead).toHaveLength(1);
  });

  it('creates a missing directory, and names the file when it cannot be opened', async () => {
    const nested = await openSegment({
      ...spec('x'),
      dir: path.join(dir, 'n'),
      file: path.join(dir, 'n', 'd.jsonl'),
      fresh: true,
    });
    await nested.handle.close();
    await writeFile(path.join(dir, 'plain'), 'not a directory');
    const blocked = path.join(dir, 'plain', 'e.jsonl');
    await expect(
      openSegment({ ...spec('x'), dir: path.join(dir, 'plain'), file: blocked }),
    ).rejects.toMatchObject({
      code: 'io_error',
      message: expect.stringContaining(blocked),
    });
  });
});
