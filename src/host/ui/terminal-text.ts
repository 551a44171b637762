// What the terminal UI (the chat, the prompts and trees of `cadre run` and `cadre explore`) draws
// untrusted text with: agent names and descriptions from files, model text, tool arguments and
// results, diffs. The cleaning itself is the CLI's one terminal sanitizer (../terminal-text.ts:
// escape sequences, controls, bidi and invisible characters made visible); this module adds what a
// redrawn layout needs on top of it: tabs widened to spaces (a tab's width depends on the column),
// and lines measured, cut and wrapped by terminal cells. The UI never has a raw mode: `--raw`
// applies to the text a command prints, not to what a prompt shows a person to decide on.
import { terminalText } from '../terminal-text.js';

/**
 * Text safe to write to a terminal, newlines kept: escape sequences, controls, bidi and invisible
 * characters made visible; CRLF becomes LF, a tab two spaces.
 */
export function sanitizeForTerminal(text: string): string {
  return terminalText(String(text)).replace(/\t/g, '  ');
}

/** `sanitizeForTerminal` for a single line: line breaks shown as symbols (`␊`, `␍`). */
export function sanitizeLine(text: string): string {
  return terminalText(String(text), { multiline: false }).replace(/\t/g, '  ');
}

function inRanges(code: number, ranges: readonly (readonly [number, number])[]): boolean {
  for (const [from, to] of ranges) if (code >= from && code <= to) return true;
  return false;
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
// The zero-width joiner is kept by the sanitizer only inside an emoji sequence.
const ZERO_RANGES: readonly (readonly [number, number])[] = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x200d, 0x200d],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
];

// Pictographs (✅ ⚡ ⌚ ⭐ and the like, outside the ranges above) and regional indicators are drawn
// two cells wide by most terminals, one by some: counted as two, so a line is at worst cut a little
// short, never wider than measured (a line that wraps breaks the redraw of a live region: the old
// prompt's lines would stay on screen above the next one).
const PICTOGRAPH = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/** Terminal cells one character takes. */
function cells(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0xa9) return 1;
  if (inRanges(code, ZERO_RANGES)) return 0;
  return inRanges(code, WIDE_RANGES) || PICTOGRAPH.test(ch) ? 2 : 1;
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
