// The terminal UI's gate (the CLI's one sanitizer, plus cell widths): no escape sequence, control,
// bidi or invisible character gets through raw.
import { describe, expect, it } from 'vitest';
import {
  clipLine,
  displayWidth,
  sanitizeForTerminal,
  sanitizeLine,
} from '../../../src/host/ui/terminal-text.js';
import { terminalCleaner } from '../../../src/host/terminal-text.js';

/** Anything that could move the cursor, change colours or hide text. */
const DANGEROUS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

describe('sanitizeForTerminal', () => {
  it('makes CSI, OSC and DCS sequences visible instead of live', () => {
    const hostile =
      'ok\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\\x1bP+q\x1b\\\x9b31m';
    const out = sanitizeForTerminal(hostile);
    expect(out).not.toMatch(DANGEROUS);
    expect(out).toContain('\u241b[2J');
    expect(out).toContain('\u241b]0;pwned\u2407');
    expect(out).toContain('<U+009B>31m');
  });

  it('shows bidi overrides and invisible characters as code points', () => {
    const out = sanitizeForTerminal('rm -rf /\u202e txt.exe\u2066x\u2069\u200bzero\ufeff\u{e0041}');
    expect(out).not.toMatch(DANGEROUS);
    expect(out).toContain('<U+202E>');
    expect(out).toContain('<U+2066>');
    expect(out).toContain('<U+200B>');
    expect(out).toContain('<U+FEFF>');
    expect(out).toContain('<U+E0041>');
  });

  it('keeps newlines and ordinary text, turns CRLF into LF and a lone CR into a visible one', () => {
    expect(sanitizeForTerminal('a\r\nb\rc\td é 漢字 🙂')).toBe('a\nb\u240dc  d é 漢字 🙂');
  });

  it("sanitizeLine puts everything on one line, as the CLI's one-line cleaner does", () => {
    expect(sanitizeLine('one\ntwo\r\nthree\tfour')).toBe('one\u240atwo\u240d\u240athree  four');
    expect(sanitizeLine('one\ntwo')).toBe(terminalCleaner(false).line('one\ntwo'));
  });

  it('clipLine cuts by terminal cells, counting wide characters as two', () => {
    expect(displayWidth('漢字ab')).toBe(6);
    expect(clipLine('abcdefgh', 5)).toBe('abcd\u2026');
    expect(clipLine('漢字漢字', 5)).toBe('漢字\u2026');
    expect(displayWidth(clipLine('漢字漢字', 5))).toBeLessThanOrEqual(5);
    expect(clipLine('short', 10)).toBe('short');
    expect(clipLine('\x1b[31mred', 20)).toBe('\u241b[31mred');
  });

  it('counts pictographs a terminal draws two cells wide as two, so a cut line never wraps', () => {
    // tmux and most terminals draw these two cells wide; they are outside the CJK ranges.
    expect(displayWidth('\u2705\u26a1\u231a\u2b50')).toBe(8);
    expect(displayWidth('\u{1f1eb}\u{1f1f7}')).toBe(4);
    expect(displayWidth(clipLine('\u2705'.repeat(60), 79))).toBeLessThanOrEqual(79);
    expect(clipLine('\u2705'.repeat(60), 79)).toBe(`${'\u2705'.repeat(39)}\u2026`);
    // Plain text is unchanged.
    expect(displayWidth('a-b_c (d)')).toBe(9);
  });

  it('never lets a raw control through, whatever the input', () => {
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 40 }, () =>
        String.fromCharCode(Math.floor(Math.random() * 0x2100)),
      ).join('');
      expect(sanitizeForTerminal(text)).not.toMatch(DANGEROUS);
    }
  });
});
