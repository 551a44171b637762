// JSON text of a value that may hold very long strings (a run's result of tens of MB), produced in
// pieces: the long strings are escaped slice by slice as they are written, so the whole text never
// exists as one string. JSON.stringify of a 50 MB result costs two to three times its size while
// it builds; a transcript line or `--json` output holding it then cost that per copy.
import { randomUUID } from 'node:crypto';

/** Strings at least this long are written in slices. */
export const LONG_STRING_CHARS = 1024 * 1024;

/** A value's JSON: one string, or small text around long strings to escape slice by slice. */
export type JsonText = { text: string } | { parts: (string | { long: string })[] };

const TOKEN = `\u0000cadre-long-${randomUUID()}-`;

/** Whether `value` holds a string of LONG_STRING_CHARS or more (a walk of its structure, not its text). */
export function holdsLongString(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.length >= LONG_STRING_CHARS;
  if (typeof value !== 'object' || value === null || depth > 64) return false;
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  return children.some((child) => holdsLongString(child, depth + 1));
}

/**
 * The JSON of `value` (as JSON.stringify(value, null, space)); throws as JSON.stringify does.
 * Undefined when JSON.stringify would return undefined.
 */
export function jsonText(value: unknown, space?: number): JsonText | undefined {
  if (!holdsLongString(value)) {
    const text = JSON.stringify(value, null, space) as string | undefined;
    return text === undefined ? undefined : { text };
  }
  const longs: string[] = [];
  const replacer = (_key: string, v: unknown) =>
    typeof v === 'string' && v.length >= LONG_STRING_CHARS ? `${TOKEN}${longs.push(v) - 1}` : v;
  const text = JSON.stringify(value, replacer, space) as string | undefined;
  if (text === undefined) return undefined;
  const parts: (string | { long: string })[] = [];
  let rest = text;
  longs.forEach((long, i) => {
    const marker = JSON.stringify(`${TOKEN}${i}`);
    const at = rest.indexOf(marker);
    parts.push(rest.slice(0, at), { long });
    rest = rest.slice(at + marker.length);
  });
  parts.push(rest);
  return { parts };
}

/** The pieces of `json` in order, each long string escaped a slice at a time. */
export function* jsonPieces(json: JsonText, slice = LONG_STRING_CHARS): Generator<string> {
  if ('text' in json) return yield json.text;
  for (const part of json.parts) {
    if (typeof part === 'string') {
      if (part !== '') yield part;
      continue;
    }
    yield '"';
    // Each slice escapes on its own; a surrogate pair split between two slices comes out as two
    // escapes that parse back to the same pair.
    for (let i = 0; i < part.long.length; i += slice)
      yield JSON.stringify(part.long.slice(i, i + slice)).slice(1, -1);
    yield '"';
  }
}

/** Bounds on the UTF-8 size of `json`: exact for plain text, min and max around long strings. */
export function jsonBytes(json: JsonText): { min: number; max: number } {
  if ('text' in json) {
    const n = Buffer.byteLength(json.text);
    return { min: n, max: n };
  }
  let min = 0;
  let max = 0;
  for (const part of json.parts) {
    const small = typeof part === 'string' ? Buffer.byteLength(part) : 2;
    min += small + (typeof part === 'string' ? 0 : part.long.length);
    // An escape is at most six bytes (\u0000) per UTF-16 unit.
    max += small + (typeof part === 'string' ? 0 : 6 * part.long.length);
  }
  return { min, max };
}
