import { describe, expect, it } from 'vitest';
import { terminalCleaner, terminalText } from '../../src/host/terminal-text.js';

describe('terminalText', () => {
  it.each([
    ['OSC 52 (clipboard)', '\x1b]52;c;Y3VybA==\x07', '␛]52;c;Y3VybA==␇'],
    ['OSC 0 (title) with ST', '\x1b]0;pwned\x1b\\', '␛]0;pwned␛\\'],
    ['CSI clear screen and colour', '\x1b[2J\x1b[31mred\x1b[0m', '␛[2J␛[31mred␛[0m'],
    ['DCS', '\x1bP+q544e\x1b\\', '␛P+q544e␛\\'],
    ['8-bit CSI (C1)', '\u009b2J', '<U+009B>2J'],
    ['NUL, backspace, DEL', 'a\x00b\x08c\x7f', 'a␀b␈c␡'],
    ['a bare carriage return', 'ok\rFAKE', 'ok␍FAKE'],
    ['right-to-left override', 'txt.\u202eexe', 'txt.<U+202E>exe'],
    ['isolates and marks', '\u2066a\u2069\u200e\u200f\u061c', '<U+2066>a<U+2069><U+200E><U+200F><U+061C>'],
    ['zero-width and invisible', 'a\u200bb\u2060c\ufeffd\u00ade', 'a<U+200B>b<U+2060>c<U+FEFF>d<U+00AD>e'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a<U+2028>b<U+2029>c'],
    ['tag characters (hidden text)', 'x\u{E0041}\u{E0042}', 'x<U+E0041><U+E0042>'],
  ])('%s is made visible and inert', (_name, input, expected) => {
    expect(terminalText(input)).toBe(expected);
  });

  it('keeps ordinary text, tabs, newlines, accents and emoji as they are', () => {
    const text = 'héllo\twörld\n日本語 ✓ 👨\u200d👩\u200d👧 ❤\ufe0f\r\nnext';
    expect(terminalText(text)).toBe('héllo\twörld\n日本語 ✓ 👨\u200d👩\u200d👧 ❤\ufe0f\nnext');
  });

  it('shows a zero-width joiner that joins no emoji', () => {
    expect(terminalText('a\u200db')).toBe('a<U+200D>b');
  });

  it('shows line breaks in one-line text', () => {
    expect(terminalText('a\nb\r\nc', { multiline: false })).toBe('a␊b␍␊c');
  });

  it('leaves nothing a terminal acts on, for any input', () => {
    let state = 42;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
    for (let round = 0; round < 200; round++) {
      const input = Array.from({ length: 64 }, () => String.fromCharCode(next() % 0x2100)).join('');
      const out = terminalText(input);
      for (const ch of out) {
        const c = ch.charCodeAt(0);
        expect(c < 0x20 && c !== 0x0a && c !== 0x09).toBe(false);
        expect(c >= 0x7f && c <= 0x9f).toBe(false);
      }
    }
  });

  it('--raw returns the text unchanged', () => {
    const raw = terminalCleaner(true);
    expect(raw.block('\x1b[2J')).toBe('\x1b[2J');
    expect(terminalCleaner(false).line('a\n\x1b')).toBe('a␊␛');
  });
});
