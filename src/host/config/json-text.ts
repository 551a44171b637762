// Parses JSON text and, when it is malformed, says where: V8's messages name a position only
// sometimes (and never a line), so a small scanner finds the first offending character.

/** A successful parse, or the line/column (1-based) of the first error. */
export type JsonParseResult =
  { ok: true; value: unknown } | { ok: false; message: string; line: number; column: number };

/** Parses `text` as strict JSON (no comments, no trailing commas). */
export function parseJsonText(text: string): JsonParseResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) as unknown };
  } catch (error) {
    const offset = firstErrorOffset(source);
    const { line, column } = lineColumn(source, offset);
    const found =
      offset < source.length ? `unexpected ${JSON.stringify(source[offset])}` : 'unexpected end of input';
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `invalid JSON: ${found} (${reason})`, line, column };
  }
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class Stop {
  constructor(readonly at: number) {}
}

// A validating recursive-descent scanner: it throws Stop at the first character JSON forbids.
function firstErrorOffset(s: string): number {
  let i = 0;
  const ws = () => {
    while (i < s.length && ' \t\r\n'.includes(s[i] ?? '')) i++;
  };
  const expect = (word: string) => {
    for (const ch of word) {
      if (s[i] !== ch) throw new Stop(i);
      i++;
    }
  };
  const string = () => {
    expect('"');
    for (;;) {
      const ch = s[i];
      if (ch === undefined || ch < ' ') throw new Stop(i);
      i++;
      if (ch === '"') return;
      if (ch === '\\') {
        const esc = s[i];
        if (esc === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) throw new Stop(i);
          i += 5;
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i++;
        else throw new Stop(i);
      }
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(s.slice(i, i + 400));
    if (!m) throw new Stop(i);
    i += m[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new Stop(i);
    ws();
    const ch = s[i];
    if (ch === '{') {
      i++;
      ws();
      if (s[i] === '}') return void i++;
      for (;;) {
        ws();
        string();
        ws();
        expect(':');
        value(depth + 1);
        ws();
        if (s[i] === ',') i++;
        else return expect('}');
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (s[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (s[i] === ',') i++;
        else return expect(']');
      }
    }
    if (ch === '"') return string();
    if (ch === 't') return expect('true');
    if (ch === 'f') return expect('false');
    if (ch === 'n') return expect('null');
    return number();
  };
  try {
    value(0);
    ws();
    return i < s.length ? i : s.length;
  } catch (stop) {
    if (stop instanceof Stop) return stop.at;
    throw stop;
  }
}
