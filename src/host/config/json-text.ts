// Parses JSON text and, when it is malformed, says where: V8's messages name a position only
// sometimes (and never a line), so a small scanner finds the first offending character.

/** A successful parse, or the line/column (1-based) of the first error. */
export type JsonParseResult =
  { ok: true; value: unknown } | { ok: false; message: string; line: number; column: number };

/** The longest config or `--agents` JSON text (agent files have the same 4 MiB cap). */
const MAX_JSON_CHARS = 4 * 1024 * 1024;

/** Deepest nesting of objects and arrays a config or `--agents` file may have. */
const MAX_JSON_DEPTH = 64;

/**
 * Parses `text` as strict JSON (no comments, no trailing commas). A key given twice in one object
 * is an error naming the key and both lines (JSON.parse would keep the last one silently: a second
 * `"permissions"` block would drop the first one's deny rules), and so is nesting deeper than
 * MAX_JSON_DEPTH (later steps walk the value recursively).
 */
export function parseJsonText(text: string): JsonParseResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.length > MAX_JSON_CHARS)
    return {
      ok: false,
      message: `the file is ${source.length} characters long, over the ${MAX_JSON_CHARS}-character limit for a config or agents file`,
      line: 1,
      column: 1,
    };
  let value: unknown;
  try {
    value = JSON.parse(source) as unknown;
  } catch (error) {
    const offset = firstErrorOffset(source);
    const { line, column } = lineColumn(source, offset);
    const found =
      offset < source.length ? `unexpected ${JSON.stringify(source[offset])}` : 'unexpected end of input';
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `invalid JSON: ${found} (${reason})`, line, column };
  }
  const problem = structureProblem(source);
  return problem ?? { ok: true, value };
}

/** An object or array being scanned: an object's keys (with their lines) and where it sits. */
interface OpenContainer {
  keys: Map<string, number> | undefined;
  path: string;
}

/**
 * Scans valid JSON without recursion for duplicate keys and excess depth; the first problem found,
 * with its line and column.
 */
function structureProblem(s: string): Extract<JsonParseResult, { ok: false }> | undefined {
  const stack: OpenContainer[] = [];
  let line = 1;
  let lineStart = 0;
  let pendingKey: { name: string; line: number } | undefined;
  let lastKey = '';
  const at = (i: number, message: string) => ({
    ok: false as const,
    message,
    line,
    column: i - lineStart + 1,
  });
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (ch === 10) {
      line++;
      lineStart = i + 1;
    } else if (ch === 34) {
      // A string: find its end (escapes skipped); a key is a string followed by ':'.
      let end = i + 1;
      while (s.charCodeAt(end) !== 34) end += s.charCodeAt(end) === 92 ? 2 : 1;
      let next = end + 1;
      while (next < s.length && ' \t\r\n'.includes(s[next] ?? '')) next++;
      if (s[next] === ':') pendingKey = { name: JSON.parse(s.slice(i, end + 1)) as string, line };
      i = end;
      if (pendingKey !== undefined) {
        const top = stack[stack.length - 1];
        const first = top?.keys?.get(pendingKey.name);
        const where = top?.path ? `${top.path}.${pendingKey.name}` : pendingKey.name;
        if (first !== undefined)
          return at(
            i,
            `duplicate key "${where}" (lines ${first} and ${pendingKey.line}): JSON would keep only the last one`,
          );
        top?.keys?.set(pendingKey.name, pendingKey.line);
        lastKey = pendingKey.name;
        pendingKey = undefined;
      }
    } else if (ch === 123 || ch === 91) {
      if (stack.length >= MAX_JSON_DEPTH)
        return at(i, `nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
      const parent = stack[stack.length - 1];
      // Where this container sits: `permissions.deny`, or `agents.x.tools[]` inside a list.
      const path =
        parent === undefined
          ? ''
          : parent.keys === undefined
            ? `${parent.path}[]`
            : parent.path
              ? `${parent.path}.${lastKey}`
              : lastKey;
      stack.push({ keys: ch === 123 ? new Map() : undefined, path });
    } else if (ch === 125 || ch === 93) stack.pop();
  }
  return undefined;
}

/** 1-based line and column of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
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
