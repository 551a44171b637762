// A fast reading of the command lines agents write most: literal words joined by `&&`, `||`, `;`
// and `|`, with output redirections at the end of a command and a comment at the end of the line.
// Such a line is read here in one pass over its characters, without the bash grammar (whose parse
// alone costs more than the whole decision on a 4 KB line). Anything outside that small language
// (an expansion, glob, brace, tilde, escape, newline, reserved word, declaration, assignment,
// input redirection, or a character not listed below) returns undefined, and the grammar reads the
// line. The reading must equal the grammar's, text included: shell-static.test.ts holds the two
// readers to that on generated lines, and shell-differential.test.ts holds both to what bash runs.
import type { ShellPart, ShellReading, ShellRedirect } from './shell-parts.js';
import { escapeGlob } from './shell-quote.js';
import type { ShellWord } from './shell-words.js';

/** Longer lines go to the grammar (which caps the length and says so). */
const MAX_LENGTH = 65_536;
/** The grammar reader's cap on parts: a line near it goes to the grammar, which says so. */
const MAX_PARTS = 1024;
/**
 * The grammar nests each `&&` or `||` of a statement one to four levels deeper (a list, a
 * redirection hung on it, a pipeline) and stops following at 200: a longer chain goes to it.
 */
const MAX_CHAIN = 40;

/** Characters that stand unquoted in a word and mean nothing to bash there. */
const PLAIN_RUN = /[A-Za-z0-9_@%+=:,./-]+/y;
/** Inside single quotes: printable ASCII but the quote. */
const SINGLE = /'[ !"#$%&(-~]*'/y;
/** Inside double quotes: printable ASCII but the quote, `$`, a backtick, `\` and `!`. */
const DOUBLE = /"[ #%&'(-[\]-_a-~]*"/y;
const SPACES = /[ \t]*/y;
/** A comment to the end of the line, in printable ASCII. */
const COMMENT = /^#[\t -~]*$/;
/**
 * An output redirection: descriptor 1 or 2 (the grammar reads `0>` as a word and a redirection),
 * then `>`, `>>` or `>&` with digits.
 */
const REDIRECT = /([12]?)(>>|>&(?=[0-9]+(?=[ \t;&|]|$))|>)[ \t]*/y;

/**
 * Words the grammar or bash read as syntax where a command name stands, and the builtins the
 * grammar reads as declarations: a line holding any of them unquoted goes to the grammar.
 */
const SYNTAX_WORDS = new Set(
  [
    'case coproc do done elif else esac fi for function if in select then until time while',
    'declare export local readonly typeset unset unsetenv',
  ]
    .join(' ')
    .split(' '),
);

/** A static word from its source text and value. */
function word(text: string, value: string): ShellWord {
  return { text, value, isStatic: true, patterns: [escapeGlob(value)], complete: true };
}

/** One pass over the line; `at` is the position of the next unread character. */
class Scanner {
  at = 0;
  constructor(readonly source: string) {}

  private match(re: RegExp): string | undefined {
    re.lastIndex = this.at;
    const m = re.exec(this.source);
    if (m === null) return undefined;
    this.at += m[0].length;
    return m[0];
  }

  spaces(): void {
    this.match(SPACES);
  }

  /** A word of plain runs and quoted strings, or undefined (nothing read) when none starts here. */
  word(): ShellWord | undefined {
    const start = this.at;
    let value = '';
    for (;;) {
      const c = this.source[this.at];
      if (c === "'" || c === '"') {
        const quoted = this.match(c === "'" ? SINGLE : DOUBLE);
        if (quoted === undefined) break;
        value += quoted.slice(1, -1);
        continue;
      }
      const run = this.match(PLAIN_RUN);
      if (run === undefined) break;
      value += run;
    }
    if (this.at === start) return undefined;
    return word(this.source.slice(start, this.at), value);
  }

  /** An output redirection with its target, or undefined when none starts here. */
  redirect(): ShellRedirect | undefined {
    const start = this.at;
    REDIRECT.lastIndex = start;
    const m = REDIRECT.exec(this.source);
    if (m === null) return undefined;
    this.at += m[0].length;
    const op = m[2] as string;
    const target = this.word();
    if (target === undefined) {
      this.at = start;
      return undefined;
    }
    return { op, kind: op === '>&' ? 'dup' : 'write', target };
  }

  /**
   * The operator after a command (`&&`, `||`, `|`, `;`), '' at the end of the line or at a comment
   * that ends it, or undefined.
   */
  operator(): string | undefined {
    const s = this.source;
    if (this.at === s.length) return '';
    if (s[this.at] === '#' && /[ \t]/.test(s[this.at - 1] ?? '') && COMMENT.test(s.slice(this.at))) {
      this.at = s.length;
      return '';
    }
    const two = s.slice(this.at, this.at + 2);
    if (two === '&&' || two === '||') {
      this.at += 2;
      return two;
    }
    const one = s[this.at];
    // `|&` and `;;` are other operators; `;&` too.
    if ((one === '|' || one === ';') && !/[&;|]/.test(s[this.at + 1] ?? '')) {
      this.at += 1;
      return one;
    }
    return undefined;
  }

  /** True when the character at `at` may follow a word (a space, an operator, a redirection, the end). */
  boundary(): boolean {
    const c = this.source[this.at];
    return c === undefined || c === ' ' || c === '\t' || c === ';' || c === '&' || c === '|' || c === '>';
  }

  /** Whether a redirection can start here: `>`, or one digit then `>` (a descriptor). */
  atRedirect(): boolean {
    const s = this.source;
    return s[this.at] === '>' || (/[0-9]/.test(s[this.at] ?? '') && s[this.at + 1] === '>');
  }
}

/** One simple command: words, then redirections; undefined when it leaves the small language. */
function readCommand(sc: Scanner, first: boolean): { part: ShellPart; wordsEnd: number } | undefined {
  const start = sc.at;
  const words: ShellWord[] = [];
  const redirects: ShellRedirect[] = [];
  let wordsEnd = start;
  for (;;) {
    if (sc.atRedirect() && (redirects.length > 0 || words.length > 0)) {
      const r = sc.redirect();
      if (r === undefined || !sc.boundary()) return undefined;
      redirects.push(r);
    } else if (redirects.length === 0) {
      const w = sc.word();
      if (w === undefined || !sc.boundary()) break;
      // `22>x` redirects descriptor 22, and the grammar takes some other words right before `>`
      // (`-1>x`) for descriptors too: a redirection must stand apart from the word before it.
      if (sc.atRedirect()) return undefined;
      words.push(w);
      wordsEnd = sc.at;
    } else break;
    const before = sc.at;
    sc.spaces();
    // Words and redirections stand apart: a space between each.
    if (sc.at === before) break;
  }
  const name = words[0];
  if (name === undefined || name.value.includes('=')) return undefined;
  // `==` and `=~` are test operators to the grammar wherever they stand, and a lone `-` before a
  // descriptor's redirection is not placed by it.
  // The grammar also takes a syntax word glued to a quote (`declare'x'`) for the word, and fails
  // on a command name with `@` or `%` after its first character (`x@`).
  if (
    words.some(
      (w) =>
        SYNTAX_WORDS.has(w.text) ||
        SYNTAX_WORDS.has(w.text.split(/['"]/)[0] ?? '') ||
        w.text.startsWith('=') ||
        w.text === '-',
    ) ||
    /.[@%]/.test(name.text)
  )
    return undefined;
  const end = redirects.length > 0 ? lastEnd(sc, start) : wordsEnd;
  // The grammar hangs a redirection after `&&`, `||` or `|` on the list or pipeline before it
  // (bash gives it to the last command): such a part's text is its words alone.
  const text = sc.source.slice(start, first ? end : wordsEnd);
  return { part: { assignments: [], words, redirects, text }, wordsEnd };
}

/** The end of the command just read, without the spaces after it. */
function lastEnd(sc: Scanner, start: number): number {
  let end = sc.at;
  while (end > start && (sc.source[end - 1] === ' ' || sc.source[end - 1] === '\t')) end--;
  return end;
}

/**
 * Reads `source` when it is in the small language above; undefined otherwise (then the grammar
 * must read it). Every word of such a line is static.
 */
export function readStatic(source: string): ShellReading | undefined {
  if (source.length > MAX_LENGTH) return undefined;
  const sc = new Scanner(source);
  const parts: ShellPart[] = [];
  sc.spaces();
  let first = true;
  let chain = 0;
  for (;;) {
    const read = readCommand(sc, first);
    if (read === undefined || parts.length >= MAX_PARTS) return undefined;
    parts.push(read.part);
    const op = sc.operator();
    if (op === undefined) return undefined;
    if (op === '') return { parts, unreadable: [] };
    sc.spaces();
    first = op === ';';
    chain = op === '&&' || op === '||' ? chain + 1 : first ? 0 : chain;
    if (chain > MAX_CHAIN) return undefined;
    if (sc.at === source.length) return op === ';' ? { parts, unreadable: [] } : undefined;
  }
}
