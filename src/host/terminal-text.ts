// Makes model- and tool-controlled text safe to print on a person's terminal. Escape sequences
// (CSI, OSC, DCS, ...) could set the clipboard (OSC 52), retitle the window, clear the screen or
// draw fake output; bidirectional and invisible characters can make text read differently from
// what it is. So every C0 and C1 control character but newline and tab is shown as a visible
// symbol (an escape sequence then reads as plain text: `␛]52;c;…`), and every bidirectional or
// invisible character as `<U+XXXX>`. Pure, for the CLI and the terminal UI alike.

/** How to clean a piece of text. */
export interface TerminalTextOptions {
  /** Keep line breaks (a report); false shows them as `␊` (a progress line, a table cell). */
  multiline?: boolean;
}

/**
 * C0 controls but tab and newline, DEL, C1 controls, line and paragraph separators, bidirectional
 * controls, and characters that draw nothing (zero-width, word joiners, fillers, variation
 * selectors past the two emoji ones). ZWJ (U+200D) is among them, and kept where it joins emoji.
 */
const UNSAFE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x08],
  [0x0a, 0x1f],
  [0x7f, 0x9f],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0d],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
];

const hex = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
/** The ranges above, and in the astral planes: tag characters, their variation selectors, musical format controls. */
const UNSAFE = new RegExp(
  `[${UNSAFE_RANGES.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]` +
    `|${hex(0xdb40)}[${hex(0xdc00)}-${hex(0xddef)}]|${hex(0xd834)}[${hex(0xdd73)}-${hex(0xdd7a)}]`,
  'g',
);

const PICTOGRAPH = /\p{Extended_Pictographic}/u;

function codePoint(ch: string): string {
  return `<U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

function visible(ch: string, multiline: boolean, text: string, at: number): string {
  const code = ch.charCodeAt(0);
  if (ch === '\n') return multiline ? '\n' : '␊';
  if (ch === '\r') return multiline && text[at + 1] === '\n' ? '' : '␍';
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '␡';
  // A zero-width joiner between two pictographs builds one emoji (👨‍👩‍👧); anywhere else it hides.
  if (code === 0x200d && isPictograph(text, at - 1, true) && isPictograph(text, at + 1, false)) return ch;
  return codePoint(ch);
}

function isPictograph(text: string, at: number, before: boolean): boolean {
  // A pictograph may be a surrogate pair, and may carry an emoji variation selector after it.
  let i = at;
  if (before && text[i] === '\ufe0f') i--;
  const low = text.charCodeAt(i);
  const start = before && low >= 0xdc00 && low <= 0xdfff ? i - 1 : i;
  const cp = text.codePointAt(start);
  return cp !== undefined && PICTOGRAPH.test(String.fromCodePoint(cp));
}

/** `text` with every control, bidirectional and invisible character made visible and inert. */
export function terminalText(text: string, options: TerminalTextOptions = {}): string {
  const multiline = options.multiline ?? true;
  return text.replace(UNSAFE, (ch: string, at: number, whole: string) => visible(ch, multiline, whole, at));
}

/** A cleaner for the CLI: `terminalText`, or the text unchanged with `--raw`. */
export interface TerminalCleaner {
  /** A block of text (a report): line breaks kept. */
  block(text: string): string;
  /** One line's worth (a progress line, a name, an error): line breaks shown as `␊`. */
  line(text: string): string;
}

/** The cleaner for `raw` (true: print model text as it is, for a renderer downstream). */
export function terminalCleaner(raw: boolean): TerminalCleaner {
  if (raw) return { block: (t) => t, line: (t) => t };
  return { block: (t) => terminalText(t), line: (t) => terminalText(t, { multiline: false }) };
}
