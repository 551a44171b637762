// The one gate between untrusted text and the terminal. Agent names and descriptions from files,
// model text, tool arguments and results, diffs: a model that has read hostile text can put escape
// sequences in any of them (to retitle the window, rewrite what the prompt shows, hide a command
// behind bidi overrides). Everything the UI and the progress lines render passes through here.
//
// What it does: every C0 control but the newline (and tab, widened to spaces) becomes its visible
// Control Picture (ESC shows as U+241B), so no escape sequence (CSI, OSC, DCS, ...) survives; C1
// controls, bidi controls and invisible characters are shown as <U+XXXX>.

// Bidi embeddings, overrides and isolates, marks, and characters that render as nothing: zero
// width space/joiners, word joiner and invisible operators, BOM, soft hyphen, combining grapheme
// joiner, Hangul fillers, Mongolian vowel separator, interlinear annotations, line and paragraph
// separators, and the tag block.
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
];

// Printable ASCII and newlines: most text, passed through without a closer look.
const PLAIN = /^[\n\x20-\x7e]*$/;

function inRanges(code: number, ranges: readonly (readonly [number, number])[]): boolean {
  for (const [from, to] of ranges) if (code >= from && code <= to) return true;
  return false;
}

function codePoint(code: number): string {
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** What one character becomes on the terminal. */
function visible(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (code === 0x0a) return ch;
  if (code === 0x09) return '  ';
  // C0 controls and DEL become their Control Pictures (ESC shows as U+241B).
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  // C1 controls (0x9B is a one-byte CSI on some terminals), bidi and invisible characters.
  if ((code >= 0x80 && code <= 0x9f) || inRanges(code, INVISIBLE_RANGES)) return codePoint(code);
  return ch;
}

/**
 * Text safe to write to a terminal, newlines kept: escape sequences, controls, bidi and invisible
 * characters made visible; CRLF becomes LF, a tab two spaces.
 */
export function sanitizeForTerminal(text: string): string {
  const input = String(text).replace(/\r\n/g, '\n');
  if (PLAIN.test(input)) return input;
  let out = '';
  for (const ch of input) out += visible(ch);
  return out;
}

/** `sanitizeForTerminal` for a single line: newlines shown as a return symbol. */
export function sanitizeLine(text: string): string {
  return sanitizeForTerminal(text).replace(/\n/g, '\u23ce');
}

// East Asian wide and emoji ranges take two cells; combining marks none. An approximation of
// wcwidth good enough to keep a line from wrapping (wrapping would break a redrawn region).
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1faff],
  [0x20000, 0x3fffd],
];
const ZERO_RANGES: readonly (readonly [number, number])[] = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
];

/** Terminal cells one character takes. */
function cells(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if (inRanges(code, ZERO_RANGES)) return 0;
  return inRanges(code, WIDE_RANGES) ? 2 : 1;
}

/** Terminal cells a (sanitized, single-line) text takes. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += cells(ch);
  return width;
}

/** A sanitized line cut to `max` terminal cells, with an ellipsis when cut. */
export function clipLine(text: string, max: number): string {
  const line = sanitizeLine(text);
  if (max <= 0) return '';
  if (displayWidth(line) <= max) return line;
  let out = '';
  let width = 0;
  for (const ch of line) {
    const w = cells(ch);
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}\u2026`;
}

/** A sanitized line wrapped at spaces into lines of at most `width` cells; at most `maxLines`, the last cut. */
export function wrapLine(text: string, width: number, maxLines = 3): string[] {
  const words = sanitizeLine(text).split(' ');
  const out: string[] = [];
  let line = '';
  for (const word of words) {
    const next = line === '' ? word : `${line} ${word}`;
    if (displayWidth(next) <= width || line === '') line = next;
    else {
      out.push(line);
      line = word;
    }
  }
  if (line !== '') out.push(line);
  const kept = out.slice(0, Math.max(1, maxLines));
  if (out.length > kept.length)
    kept[kept.length - 1] = `${kept[kept.length - 1] ?? ''} ${out.slice(kept.length).join(' ')}`;
  return kept.map((l) => clipLine(l, width));
}

/** A sanitized line cut into pieces of at most `width` cells each (no character is lost). */
export function wrapCells(text: string, width: number): string[] {
  const line = sanitizeLine(text);
  const pieces: string[] = [];
  let piece = '';
  let cellsUsed = 0;
  for (const ch of line) {
    const w = cells(ch);
    if (cellsUsed + w > Math.max(1, width) && piece !== '') {
      pieces.push(piece);
      piece = '';
      cellsUsed = 0;
    }
    piece += ch;
    cellsUsed += w;
  }
  pieces.push(piece);
  return pieces;
}
