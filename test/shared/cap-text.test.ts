// The one truncation: within the cap nothing changes, past it the text ends in one note and fits
// the cap, and capping capped text again changes nothing (so a result is never noted twice).
import { describe, expect, it } from 'vitest';
import { capText, truncationNote } from '../../src/shared/cap-text.js';

const NOTE = /\n\.\.\. \[output truncated: (\d+) more characters not shown of (\d+)\]$/;

describe('capText', () => {
  it('leaves text within the cap as it is', () => {
    expect(capText('short', 1_000)).toBe('short');
    expect(capText('x'.repeat(100), 100)).toBe('x'.repeat(100));
  });

  it('cuts text past the cap to exactly the cap, ending in a note with the counts', () => {
    const text = 'y\n'.repeat(5_000);
    const out = capText(text, 1_000);
    expect(out).toHaveLength(1_000);
    expect(out.match(NOTE)?.slice(1)).toEqual(['9000', '10000']);
    expect(text.startsWith(out.replace(NOTE, ''))).toBe(true);
  });

  it('is idempotent: capping capped text adds no second note', () => {
    const once = capText('z'.repeat(50_000), 2_000);
    expect(capText(once, 2_000)).toBe(once);
    expect(once.match(/output truncated/g)).toHaveLength(1);
  });

  it("takes another note (the MCP server's budget) in the same shape", () => {
    const out = capText('a'.repeat(600), 200, (dropped, total) => `\n[${dropped} of ${total} cut]`);
    expect(out).toHaveLength(200);
    expect(out.endsWith('\n[400 of 600 cut]')).toBe(true);
  });

  it('keeps the note even when the cap is smaller than it', () => {
    expect(capText('abcdef', 3)).toBe(truncationNote(3, 6));
  });
});
