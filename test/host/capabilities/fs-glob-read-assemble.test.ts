// The pure half of the one-pass search: answers of the I/O threads put together in path order
// within the byte budget, and a batch cut at its share split so the rest is read again.
import { describe, expect, it } from 'vitest';
import { assemble, splitAtCut, type Part } from '../../../src/host/capabilities/fs/glob-read-assemble.js';
import type { FoundBatch } from '../../../src/host/capabilities/fs/io-thread.js';
import type { JudgedBatch } from '../../../src/host/capabilities/fs/judge-read-sync.js';

const found = (...paths: string[]): FoundBatch => ({ paths, reals: paths.map((p) => `/real/${p}`) });

/** An answer that read `files` (index -> content) of its batch. */
function answer(files: Record<number, string>, over: Partial<JudgedBatch> = {}): JudgedBatch {
  const read = Object.keys(files).map(Number);
  const text = read.map((i) => files[i] ?? '').join('');
  let end = 0;
  return {
    read,
    ends: read.map((i) => (end += (files[i] ?? '').length)),
    mtimes: read.map((i) => 1000 + i),
    bytes: new TextEncoder().encode(text),
    skipped: [],
    deferred: [],
    allowed: read.length,
    ...over,
  };
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('assemble', () => {
  it('joins batches in order, renumbering indexes and skips into one list of labels', () => {
    const out = assemble(
      [found('a', 'b'), found('c', 'd')],
      [answer({ 0: 'AA', 1: 'B' }), answer({ 1: 'DDD' }, { skipped: [{ index: 0, reason: 'denied' }] })],
      1000,
    );
    expect(out.labels).toEqual(['a', 'b', 'c', 'd']);
    expect(out.part.read).toEqual([0, 1, 3]);
    expect(out.part.ends).toEqual([2, 3, 6]);
    expect(out.part.mtimes).toEqual([1000, 1001, 1001]);
    expect(decode(out.part.bytes)).toBe('AABDDD');
    expect(out.part.skipped).toEqual([{ index: 2, reason: 'denied' }]);
    expect(out.deferred).toEqual([]);
    expect(out.allowed).toBe(3);
  });

  it('defers everything from the first file past the budget, and every batch after an unanswered one', () => {
    const out = assemble(
      [found('a', 'b', 'c'), found('d'), found('e')],
      [answer({ 0: 'xxxx', 1: 'yyyy', 2: 'z' }), undefined, answer({ 0: 'E' })],
      5,
    );
    // 'a' (4 bytes) fits, 'b' takes the total to 8 (the budget is checked before each file), 'c' waits.
    expect(out.labels).toEqual(['a', 'b']);
    expect(decode(out.part.bytes)).toBe('xxxxyyyy');
    expect(out.deferred).toEqual(['c', 'd', 'e']);
  });

  it('always takes one file, however large', () => {
    const out = assemble([found('big', 'small')], [answer({ 0: 'x'.repeat(50), 1: 's' })], 10);
    expect(out.part.read).toEqual([0]);
    expect(out.deferred).toEqual(['small']);
  });

  it("keeps a batch's own deferred files for later", () => {
    const out = assemble([found('a', 'b', 'c')], [answer({ 0: 'A' }, { deferred: [1, 2], allowed: 3 })], 100);
    expect(out.labels).toEqual(['a']);
    expect(out.deferred).toEqual(['b', 'c']);
  });
});

describe('splitAtCut', () => {
  it('keeps the files before the cut in the part and returns the rest, unsent, to be judged again', () => {
    const part: Part = { found: found('a', 'b', 'c', 'd'), sent: true };
    const judged = answer(
      { 0: 'A' },
      {
        skipped: [
          { index: 1, reason: 'denied' },
          { index: 3, reason: 'late' },
        ],
        deferred: [2, 3],
        allowed: 3,
      },
    );
    const rest = splitAtCut(part, judged, 2);
    expect(part.found).toEqual(found('a', 'b'));
    expect(part.answer?.skipped).toEqual([{ index: 1, reason: 'denied' }]);
    expect(part.answer?.deferred).toEqual([]);
    expect(part.answer?.allowed).toBe(1);
    expect(rest).toEqual({ found: found('c', 'd'), sent: false });
  });
});
