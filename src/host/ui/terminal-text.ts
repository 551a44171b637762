// The one gate between untrusted text and the terminal. Agent names and descriptions from files,
// model text, tool arguments and results, diffs: a model that has read hostile text can put escape
// sequences in any of them (to retitle the window, rewrite what the prompt shows, hide a command
// behind bidi overrides). Everything the UI and the progress lines render passes through here.
//
// What it does: every C0 control but the newline (and tab, widened to spaces) becomes its visible
// Control Picture (ESC shows as U+241B), so no escape sequence (CSI, OSC, DCS, ...) survives; C1
// controls, bidi controls and invisible characters are shown as <U+XXXX>.

// C0 controls but \t and \n, and DEL.
const C0 = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
// C1 controls (0x9B is a one-byte CSI on some terminals).
const C1 = /[\u0080-\u009f]/g;
// Bidi embeddings, overrides and isolates, marks, and characters that render as nothing: zero
// width space/joiners, word joiner and invisible operators, BOM, soft hyphen, Mongolian vowel
// separator, interlinear annotations, line and paragraph separators, and the tag block.
const INVISIBLE =
  /[\u061c\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u206f\u3164\ufeff\ufff9-\ufffb\uffa0]|\udb40[\udc00-\udc7f]/g;

function codePoint(ch: string): string {
  return `<U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

function controlPicture(ch: string): string {
  const code = ch.charCodeAt(0);
  return String.fromCharCode(code === 0x7f ? 0x2421 : 0x2400 + code);
}

/**
 * Text safe to write to a terminal, newlines kept: escape sequences, controls, bidi and invisible
 * characters made visible; CRLF becomes LF, a tab two spaces.
 */
export function sanitizeForTerminal(text: string): string {
  return String(text)
    .replace(/\r\n/g, '\n')
    .replace(/\t/g, '  ')
    .replace(C0, controlPicture)
    .replace(C1, codePoint)
    .replace(INVISIBLE, codePoint);
}

/** `sanitizeForTerminal` for a single line: newlines shown as a return symbol. */
export function sanitizeLine(text: string): string {
  return sanitizeForTerminal(text).replace(/\n/g, '\u23ce');
}

// East Asian wide and emoji ranges take two cells; combining marks none. An approximation of
// wcwidth good enough to keep a line from wrapping (wrapping would break a redrawn region).
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\ud83c-\ud83e][\udc00-\udfff]|[\ud840-\ud87f][\udc00-\udfff]/;
const ZERO_WIDTH = /[\u0300-\u036f\u1ab0-\u1aff\u20d0-\u20ff\ufe00-\ufe0f]/;

/** Terminal cells one character takes. */
function cells(ch: string): number {
  if (ZERO_WIDTH.test(ch)) return 0;
  return WIDE.test(ch) ? 2 : 1;
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
