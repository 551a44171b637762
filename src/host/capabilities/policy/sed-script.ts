// Whether a sed script only edits text. GNU sed runs shell commands (`e`, the `s///e` flag) and
// reads or writes files (`r`, `R`, `w`, `W`, the `s///w` flag): a script that may do any of that,
// or that this reader does not follow, is code the policy cannot judge. The reader follows the
// common syntax (addresses, `s`, `y`, text and branch commands, blocks) and nothing else.

const SAFE_COMMANDS = new Set('dDpPnNgGhHx=zF'.split(''));
const S_FLAGS = /^[gpiImM0-9]$/;

interface Cursor {
  s: string;
  i: number;
}

/** Skips a delimited regex or replacement; false when it cannot be read unambiguously. */
function skipDelimited(c: Cursor, delim: string, regex: boolean): boolean {
  for (; c.i < c.s.length; c.i++) {
    const ch = c.s[c.i];
    if (ch === '\\') {
      c.i++;
      continue;
    }
    if (ch === '\n' && delim !== '\n') return false;
    if (regex && ch === '[') {
      // A bracket expression: where it ends is version-dependent when the delimiter is inside it.
      const close = bracketEnd(c.s, c.i);
      if (close === -1 || c.s.slice(c.i, close).includes(delim)) return false;
      c.i = close;
      continue;
    }
    if (ch === delim) {
      c.i++;
      return true;
    }
  }
  return false;
}

function bracketEnd(s: string, start: number): number {
  let i = start + 1;
  if (s[i] === '^') i++;
  if (s[i] === ']') i++;
  for (; i < s.length; i++) {
    if (s[i] === '[' && (s[i + 1] === ':' || s[i + 1] === '.' || s[i + 1] === '=')) {
      const end = s.indexOf(`${s[i + 1]}]`, i + 2);
      if (end === -1) return -1;
      i = end + 1;
    } else if (s[i] === ']') return i;
  }
  return -1;
}

/** Skips one address (`12`, `$`, `/re/I`, `\%re%`, `first~step`); false when it is malformed. */
function skipAddress(c: Cursor): boolean {
  const ch = c.s[c.i];
  if (ch === undefined) return true;
  if (/[0-9]/.test(ch)) {
    while (/[0-9~]/.test(c.s[c.i] ?? '')) c.i++;
  } else if (ch === '$') {
    c.i++;
  } else if (ch === '/' || ch === '\\') {
    const delim = ch === '/' ? '/' : (c.s[c.i + 1] ?? '');
    c.i += ch === '/' ? 1 : 2;
    if (delim === '' || delim === '\n' || !skipDelimited(c, delim, true)) return false;
    while (c.s[c.i] === 'I' || c.s[c.i] === 'M') c.i++;
  } else if (ch === '+' || ch === '~') {
    c.i++;
    while (/[0-9]/.test(c.s[c.i] ?? '')) c.i++;
  }
  return true;
}

function skipLine(c: Cursor): void {
  while (c.i < c.s.length && c.s[c.i] !== '\n') {
    if (c.s[c.i] === '\\') c.i++;
    c.i++;
  }
}

function skipLabel(c: Cursor): void {
  while (c.i < c.s.length && !/[;\n]/.test(c.s[c.i] ?? '')) c.i++;
}

/** Reads one command at the cursor (after its address); false when it may run or touch files. */
function command(c: Cursor): boolean {
  const cmd = c.s[c.i++] ?? '';
  if (SAFE_COMMANDS.has(cmd) || cmd === '{' || cmd === '}') return true;
  if (cmd === 's' || cmd === 'y') {
    const delim = c.s[c.i++] ?? '';
    if (delim === '' || delim === '\n' || delim === '\\') return false;
    if (!skipDelimited(c, delim, cmd === 's') || !skipDelimited(c, delim, false)) return false;
    if (cmd === 's') while (S_FLAGS.test(c.s[c.i] ?? '')) c.i++;
    return true;
  }
  if (cmd === 'a' || cmd === 'i' || cmd === 'c' || cmd === '#') {
    skipLine(c);
    return true;
  }
  if (cmd === ':' || cmd === 'b' || cmd === 't' || cmd === 'T') {
    skipLabel(c);
    return true;
  }
  if (cmd === 'q' || cmd === 'Q' || cmd === 'l' || cmd === 'L') {
    while (/[ \t0-9]/.test(c.s[c.i] ?? '')) c.i++;
    return true;
  }
  return false;
}

/** True when the sed script only edits the text it reads (no `e`, no file reads or writes). */
export function sedScriptIsPlain(script: string): boolean {
  const c: Cursor = { s: script, i: 0 };
  while (c.i < c.s.length) {
    const ch = c.s[c.i] ?? '';
    if (/[\s;]/.test(ch)) {
      c.i++;
      continue;
    }
    if (ch === '#') {
      skipLine(c);
      continue;
    }
    if (!skipAddress(c)) return false;
    if (c.s[c.i] === ',') {
      c.i++;
      if (!skipAddress(c)) return false;
    }
    while (c.s[c.i] === ' ' || c.s[c.i] === '\t' || c.s[c.i] === '!') c.i++;
    const opensBlock = c.s[c.i] === '{';
    if (!command(c)) return false;
    if (opensBlock) continue;
    // After a command only separators may follow (`p;d`, `p}`), not more of the same command.
    while (c.s[c.i] === ' ' || c.s[c.i] === '\t') c.i++;
    const next = c.s[c.i];
    if (next !== undefined && !/[;\n}#]/.test(next)) return false;
  }
  return true;
}
