// Quote removal for the three literal forms bash has: unquoted text with backslash escapes,
// double-quoted text, and ANSI-C `$'...'` strings. Each turns source text into pieces marked
// quoted or not (glob and brace characters only act unquoted), or says it cannot be read
// exactly, and then the word is treated as unknown: a misread costs a prompt, never an escape.

/** A run of literal characters of a word. */
export interface LiteralPiece {
  text: string;
  /** Quoted or escaped: glob, brace and tilde characters in it are plain characters. */
  quoted: boolean;
}

/** Characters that end an unquoted word in bash, or start an expansion or a quote. */
const UNQUOTED_SPECIAL = /[\s;&|<>()`$'"]/;

/**
 * Unquoted source text (a `word` node) with its backslash escapes undone. Undefined when the text
 * holds a character bash would treat as syntax (the grammar then read it differently from bash).
 */
export function unquoted(text: string): LiteralPiece[] | undefined {
  const pieces: LiteralPiece[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') pieces.push({ text: plain, quoted: false });
    plain = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) return undefined;
      i++;
      if (next === '\n') continue;
      flush();
      pieces.push({ text: next, quoted: true });
      continue;
    }
    if (UNQUOTED_SPECIAL.test(c)) return undefined;
    plain += c;
  }
  flush();
  return pieces;
}

/**
 * The inside of a double-quoted string (without its quotes). A backslash escapes only `$`, a
 * backtick, `"`, `\` and a newline; an unescaped `$` or backtick is an expansion, so the text is
 * not literal and undefined is returned.
 */
export function doubleQuoted(inner: string): string | undefined {
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (c === '\\') {
      const next = inner[i + 1];
      if (next !== undefined && '$`"\\\n'.includes(next)) {
        if (next !== '\n') out += next;
        i++;
        continue;
      }
      out += c;
      continue;
    }
    if (c === '$' || c === '`' || c === '"') return undefined;
    out += c;
  }
  return out;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
};

/**
 * The inside of a `$'...'` string, decoded. Only the common escapes are decoded (the simple ones,
 * `\xHH` and octal `\NNN` that give a printable ASCII character); anything else (`\u`, `\c`, a NUL,
 * which ends the string in bash) returns undefined.
 */
export function ansiC(inner: string): string | undefined {
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (c === "'") return undefined;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = inner[i + 1] ?? '';
    const hex = /^x([0-9A-Fa-f]{1,2})/.exec(inner.slice(i + 1, i + 4));
    const oct = /^[0-7]{1,3}/.exec(inner.slice(i + 1, i + 4));
    let code: number | undefined;
    if (hex) {
      code = parseInt(hex[1] ?? '', 16);
      i += hex[0].length;
    } else if (oct) {
      code = parseInt(oct[0], 8);
      i += oct[0].length;
    } else if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      i++;
      continue;
    } else {
      return undefined;
    }
    if (code < 0x20 || code > 0x7e) return undefined;
    out += String.fromCharCode(code);
  }
  return out;
}

/** `text` with glob, brace and escape characters escaped, so a pattern matches it literally. */
export function escapeGlob(text: string): string {
  return GLOB_SPECIAL.test(text) ? text.replace(GLOB_SPECIALS, '\\$&') : text;
}

const GLOB_SPECIAL = /[*?[\]{}\\]/;
const GLOB_SPECIALS = /[*?[\]{}\\]/g;
