// Splits a shell command into the simple commands bash would run, for rule matching. Quotes are
// honoured (`echo "a && b"` is one command), `$(...)`, backticks and `<(...)` become commands of
// their own, redirections are collected, and here-document bodies are skipped. What cannot be read
// statically is flagged so the policy asks instead of guessing.
import { scanAnsiC, scanBackticks, skipHeredoc, type PendingHeredoc } from './shell-lex.js';

/** One word after quote removal. */
export interface ShellWord {
  value: string;
  /** Holds a `$var`, `${...}`, `$((...))` or a command substitution: its value is only known at run time. */
  dynamic: boolean;
  /** Some part was quoted or escaped (so `if` in quotes is a plain word, not a keyword). */
  quoted: boolean;
}

/** A redirection such as `> out.txt`, `2>&1`, `<<EOF`. */
export interface ShellRedirect {
  op: string;
  /** The target word (a file, an fd number, or a here-document delimiter). */
  target: string;
  dynamic: boolean;
}

/** One simple command. */
export interface ShellCommand {
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** The source text of this command, for messages. */
  text: string;
}

/** The commands found, and anything that makes static reading unreliable. */
export interface ShellParse {
  commands: ShellCommand[];
  problems: string[];
}

const MAX_LENGTH = 65_536;
const MAX_DEPTH = 12;
const MAX_COMMANDS = 512;

/** Parses a command line; never throws. */
export function parseShell(source: string): ShellParse {
  const out: ShellParse = { commands: [], problems: [] };
  if (source.length > MAX_LENGTH) {
    out.problems.push(`the command is longer than ${MAX_LENGTH} characters`);
    return out;
  }
  new Parser(source, out, 0).parseList(0, false);
  return out;
}

/** Parses a list of words that is already split (e.g. `find -exec ... ;`) as one command. */
export function wordsCommand(words: ShellWord[], text: string): ShellCommand {
  return { words, redirects: [], text };
}

const OPERATOR_CHARS = new Set([';', '&', '|', '(', ')', '\n']);

class Parser {
  private i = 0;
  private heredocs: PendingHeredoc[] = [];

  constructor(
    private readonly src: string,
    private readonly out: ShellParse,
    private readonly depth: number,
  ) {}

  private problem(message: string): void {
    if (!this.out.problems.includes(message)) this.out.problems.push(message);
  }

  /** Parses from `start` to the end, or to an unmatched `)` when `nested`; returns the index after it. */
  parseList(start: number, nested: boolean): number {
    this.i = start;
    const src = this.src;
    let words: ShellWord[] = [];
    let redirects: ShellRedirect[] = [];
    let cmdStart = this.i;
    let pendingRedirect: string | undefined;
    let parens = 0;
    const finish = (end: number) => {
      if (pendingRedirect !== undefined) this.problem(`a redirection "${pendingRedirect}" has no target`);
      pendingRedirect = undefined;
      if (words.length > 0 || redirects.length > 0) {
        if (this.out.commands.length >= MAX_COMMANDS) this.problem(`more than ${MAX_COMMANDS} commands`);
        else this.out.commands.push({ words, redirects, text: src.slice(cmdStart, end).trim() });
      }
      words = [];
      redirects = [];
    };
    while (this.i < src.length) {
      const c = src[this.i] ?? '';
      if (c === ' ' || c === '\t' || c === '\r') {
        this.i++;
        continue;
      }
      if (c === '\\' && src[this.i + 1] === '\n') {
        this.i += 2;
        continue;
      }
      if (c === '#') {
        while (this.i < src.length && src[this.i] !== '\n') this.i++;
        continue;
      }
      if (c === '(' && nested) parens++;
      if (c === ')' && nested) {
        if (parens === 0) {
          finish(this.i);
          return this.i + 1;
        }
        parens--;
      }
      if (OPERATOR_CHARS.has(c) && !(c === '&' && src[this.i + 1] === '>')) {
        finish(this.i);
        if (c === '\n') {
          this.i++;
          this.readHeredocBodies();
        } else {
          this.i +=
            src.startsWith('&&', this.i) ||
            src.startsWith('||', this.i) ||
            src.startsWith(';;', this.i) ||
            src.startsWith('|&', this.i)
              ? 2
              : 1;
        }
        cmdStart = this.i;
        continue;
      }
      const redirect = this.readRedirectOp(words);
      if (redirect !== undefined) {
        if (pendingRedirect !== undefined) this.problem(`a redirection "${pendingRedirect}" has no target`);
        pendingRedirect = redirect;
        continue;
      }
      const word = this.readWord();
      if (word === undefined) {
        this.i++;
        continue;
      }
      if (pendingRedirect !== undefined) {
        redirects.push({ op: pendingRedirect, target: word.value, dynamic: word.dynamic });
        if (pendingRedirect === '<<' || pendingRedirect === '<<-') {
          this.heredocs.push({
            delimiter: word.value,
            stripTabs: pendingRedirect === '<<-',
            quoted: word.quoted,
          });
        }
        pendingRedirect = undefined;
      } else {
        words.push(word);
      }
    }
    finish(this.i);
    if (nested) this.problem('a "$(" or "(" is never closed');
    if (this.heredocs.length > 0) this.problem('a here-document is never terminated');
    return this.i;
  }

  /** Reads a redirection operator at the cursor (an fd number just read is folded into it). */
  private readRedirectOp(words: ShellWord[]): string | undefined {
    const src = this.src;
    const rest = src.slice(this.i, this.i + 4);
    const m = /^(?:&>>|&>|<<<|<<-|<<|<>|<&|>&|>>|>\||<|>)/.exec(rest);
    if (!m) return undefined;
    // `<(` and `>(` are process substitutions, read as words.
    if ((m[0] === '<' || m[0] === '>') && src[this.i + 1] === '(') return undefined;
    const prev = words[words.length - 1];
    const before = src[this.i - 1];
    if (prev && !prev.quoted && /^\d+$/.test(prev.value) && before !== undefined && /\d/.test(before))
      words.pop();
    this.i += m[0].length;
    return m[0];
  }

  /** Reads one word, handling quotes, escapes and substitutions. */
  private readWord(): ShellWord | undefined {
    const src = this.src;
    let value = '';
    let dynamic = false;
    let quoted = false;
    const startIndex = this.i;
    while (this.i < src.length) {
      const c = src[this.i] ?? '';
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') break;
      if (OPERATOR_CHARS.has(c)) break;
      if ((c === '<' || c === '>') && src[this.i + 1] !== '(') break;
      if (c === '\\') {
        quoted = true;
        const next = src[this.i + 1];
        if (next === undefined) {
          this.i++;
        } else if (next === '\n') {
          this.i += 2;
        } else {
          value += next;
          this.i += 2;
        }
        continue;
      }
      if (c === "'") {
        quoted = true;
        const end = src.indexOf("'", this.i + 1);
        if (end === -1) {
          this.problem('a single quote is never closed');
          value += src.slice(this.i + 1);
          this.i = src.length;
        } else {
          value += src.slice(this.i + 1, end);
          this.i = end + 1;
        }
        continue;
      }
      if (c === '"') {
        quoted = true;
        const r = this.readDoubleQuoted();
        value += r.value;
        dynamic ||= r.dynamic;
        continue;
      }
      if (c === '`') {
        dynamic = true;
        this.readBackticks();
        continue;
      }
      if (c === '$') {
        if (src[this.i + 1] === "'") {
          quoted = true;
          value += this.readAnsiC();
          continue;
        }
        const expands = this.readDollar();
        dynamic ||= expands;
        if (!expands) value += '$';
        continue;
      }
      if ((c === '<' || c === '>') && src[this.i + 1] === '(') {
        dynamic = true;
        this.nested(this.i + 2);
        continue;
      }
      value += c;
      this.i++;
    }
    if (this.i === startIndex) return undefined;
    return { value, dynamic, quoted };
  }

  /** Reads `"..."` starting at the quote; returns its value and whether it expands anything. */
  private readDoubleQuoted(): { value: string; dynamic: boolean } {
    const src = this.src;
    let value = '';
    let dynamic = false;
    this.i++;
    while (this.i < src.length) {
      const c = src[this.i] ?? '';
      if (c === '"') {
        this.i++;
        return { value, dynamic };
      }
      if (c === '\\') {
        const next = src[this.i + 1];
        if (next !== undefined && '$`"\\\n'.includes(next)) {
          if (next !== '\n') value += next;
          this.i += 2;
        } else {
          value += c;
          this.i++;
        }
        continue;
      }
      if (c === '`') {
        dynamic = true;
        this.readBackticks();
        continue;
      }
      if (c === '$') {
        const expands = this.readDollar();
        dynamic ||= expands;
        if (!expands) value += '$';
        continue;
      }
      value += c;
      this.i++;
    }
    this.problem('a double quote is never closed');
    return { value, dynamic };
  }

  /** At a `$`: reads `$(...)`, `$((...))`, `${...}` or `$name`. Returns whether it expands. */
  private readDollar(): boolean {
    const src = this.src;
    const next = src[this.i + 1];
    if (next === '(' && src[this.i + 2] === '(') {
      const end = src.indexOf('))', this.i + 3);
      const body = src.slice(this.i + 3, end === -1 ? src.length : end);
      if (body.includes('$(') || body.includes('`')) this.problem('a command substitution inside arithmetic');
      this.i = end === -1 ? src.length : end + 2;
      return true;
    }
    if (next === '(') {
      this.nested(this.i + 2);
      return true;
    }
    if (next === '{') {
      const end = src.indexOf('}', this.i + 2);
      const body = src.slice(this.i + 2, end === -1 ? src.length : end);
      if (body.includes('$(') || body.includes('`')) this.problem('a command substitution inside "${...}"');
      this.i = end === -1 ? src.length : end + 1;
      return true;
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(src.slice(this.i + 1, this.i + 256));
    if (name) {
      this.i += 1 + name[0].length;
      return true;
    }
    this.i++;
    return false;
  }

  /** Reads `$'...'` (ANSI-C quoting) and returns its decoded value. */
  private readAnsiC(): string {
    const r = scanAnsiC(this.src, this.i);
    if (!r.closed) this.problem("a $'...' quote is never closed");
    this.i = r.end;
    return r.value;
  }

  /** Reads a backtick substitution at the cursor and parses its body as commands. */
  private readBackticks(): void {
    const r = scanBackticks(this.src, this.i);
    if (!r.closed) this.problem('a backtick is never closed');
    this.i = r.end;
    if (this.depth >= MAX_DEPTH) {
      this.problem('command substitutions are nested too deeply');
      return;
    }
    new Parser(r.value, this.out, this.depth + 1).parseList(0, false);
  }

  /** Parses a `$(`, `<(` or `>(` body that starts at `start`; moves the cursor past its `)`. */
  private nested(start: number): void {
    if (this.depth >= MAX_DEPTH) {
      this.problem('command substitutions are nested too deeply');
      this.i = this.src.length;
      return;
    }
    const inner = new Parser(this.src, this.out, this.depth + 1);
    this.i = inner.parseList(start, true);
  }

  /** After a newline: skips the bodies of here-documents opened on the line just read. */
  private readHeredocBodies(): void {
    for (let doc = this.heredocs.shift(); doc !== undefined; doc = this.heredocs.shift()) {
      const r = skipHeredoc(this.src, this.i, doc);
      this.i = r.end;
      if (r.substitutes) this.problem('a here-document runs a command substitution');
      if (!r.closed) this.problem('a here-document is never terminated');
    }
  }
}
