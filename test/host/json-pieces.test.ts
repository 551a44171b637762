// JSON in pieces: the joined pieces are exactly JSON.stringify's text, long strings included
// (escapes, and a surrogate pair split between two slices), while no piece is a whole long string.
import { describe, expect, it } from 'vitest';
import {
  holdsLongString,
  jsonBytes,
  jsonPieces,
  jsonText,
  LONG_STRING_CHARS,
} from '../../src/host/json-pieces.js';

describe('jsonText and jsonPieces', () => {
  const long = `${'a"\\\n\u0001é'.repeat(LONG_STRING_CHARS / 5)}😀${'z'.repeat(1000)}`;
  const value = {
    type: 'agent-end',
    output: { result: long, nested: [1, { also: long.slice(3) }], short: 'x' },
  };

  it('joins to what JSON.stringify makes, with and without indentation', () => {
    for (const space of [undefined, 2]) {
      const json = jsonText(value, space);
      expect(json && 'parts' in json).toBe(true);
      // Slices of 7 split the emoji's surrogate pair somewhere: it must still parse back whole.
      const pieces = [...jsonPieces(json!, 7 * 1024 + 3)];
      expect(pieces.join('')).toBe(JSON.stringify(value, null, space));
      expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(8 * 7 * 1024);
      expect(JSON.parse(pieces.join(''))).toEqual(value);
    }
  });

  it('keeps small values as one text, and bounds the size of long ones', () => {
    expect(jsonText({ a: 'b' })).toEqual({ text: '{"a":"b"}' });
    expect(holdsLongString({ a: ['x'.repeat(LONG_STRING_CHARS)] })).toBe(true);
    expect(jsonText(undefined)).toBeUndefined();
    const json = jsonText(value)!;
    const exact = Buffer.byteLength(JSON.stringify(value));
    const { min, max } = jsonBytes(json);
    expect(min).toBeLessThanOrEqual(exact);
    expect(max).toBeGreaterThanOrEqual(exact);
  });
});
