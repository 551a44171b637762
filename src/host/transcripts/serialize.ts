// How a transcript record becomes a line and reaches the file: JSON, held to the line cap, with a
// record holding a very long string (a result of tens of MB) kept as pieces that are escaped as
// they are written (json-pieces.ts), and lines joined into writes of about 1 MiB.
import type { FileHandle } from 'node:fs/promises';
import { jsonBytes, jsonPieces, jsonText, LONG_STRING_CHARS, type JsonText } from '../json-pieces.js';

/**
 * The longest line a transcript holds, in bytes (the reader refuses longer ones). A record that
 * would make a longer line is written with its long strings cut (see `serialize`).
 */
export const MAX_TRANSCRIPT_LINE_BYTES = 64 * 1024 * 1024;
/** Lines are joined into writes of about this many characters. */
const WRITE_CHARS = 1024 * 1024;
/** A long plain line is written in slices of this many characters (each becomes a buffer of its own). */
const SLICE_CHARS = 8 * 1024 * 1024;

/** A line ready to write: text ending in a newline, or the pieces of a long one (newline added on write). */
export type Line = string | { long: JsonText };

function errorLine(clock: () => number, message: string, type: unknown): string {
  const about = typeof type === 'string' ? ` (a "${type.slice(0, 40)}" record)` : '';
  return `${JSON.stringify({ type: 'transcript-error', at: clock(), message: `${message}${about}` })}\n`;
}

/** The exact UTF-8 size of `json`, counted piece by piece (only for lines near the cap). */
function exactBytes(json: JsonText): number {
  let n = 0;
  for (const piece of jsonPieces(json)) n += Buffer.byteLength(piece);
  return n;
}

/** Marks a string cut short to fit the line cap. */
function cut(text: string): string {
  return `${text.slice(0, LONG_STRING_CHARS)}… [${text.length - LONG_STRING_CHARS} more characters not kept in the transcript]`;
}

/** A copy of `value` with every string of LONG_STRING_CHARS or more cut to that length. */
function cutLongStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length >= LONG_STRING_CHARS ? cut(value) : value;
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => cutLongStrings(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutLongStrings(v, depth + 1)]));
}

/**
 * One record as a line; never throws (what cannot be written becomes a `transcript-error` line).
 * A record over the line cap keeps its shape with its long strings cut (`transcriptTruncated`):
 * a run's status line and its messages must stay readable, whatever their size.
 */
export function serialize(record: object, clock: () => number): Line {
  const line = toLine(record, clock);
  if (line !== 'over') return line;
  const shorter = { ...(cutLongStrings(record) as object), transcriptTruncated: true };
  const retry = toLine(shorter, clock);
  return retry !== 'over'
    ? retry
    : errorLine(
        clock,
        `record over the ${MAX_TRANSCRIPT_LINE_BYTES}-byte line cap not written`,
        (record as { type?: unknown }).type,
      );
}

function toLine(record: object, clock: () => number): Line | 'over' {
  const type = (record as { type?: unknown }).type;
  let json: JsonText | undefined;
  try {
    json = jsonText(record);
  } catch (error) {
    return errorLine(clock, `unserialisable record: ${(error as Error).message}`, type);
  }
  if (json === undefined) return errorLine(clock, 'unserialisable record', type);
  const bounds = 'text' in json ? { min: json.text.length, max: json.text.length * 3 } : jsonBytes(json);
  const over =
    bounds.min > MAX_TRANSCRIPT_LINE_BYTES ||
    (bounds.max > MAX_TRANSCRIPT_LINE_BYTES &&
      ('text' in json ? Buffer.byteLength(json.text) : exactBytes(json)) > MAX_TRANSCRIPT_LINE_BYTES);
  if (over) return 'over';
  return 'text' in json ? `${json.text}\n` : { long: json };
}

const sizeOf = (line: Line) => (typeof line === 'string' ? line.length : Infinity);

/** Writes `lines` in order: short ones joined up to WRITE_CHARS per write, a long one piece by piece. */
export async function writeLines(handle: FileHandle, lines: readonly Line[]): Promise<void> {
  for (let at = 0; at < lines.length;) {
    const first = lines[at] as Line;
    if (typeof first !== 'string') {
      for (const piece of jsonPieces(first.long)) await handle.write(piece);
      await handle.write('\n');
      at++;
      continue;
    }
    if (first.length > SLICE_CHARS) {
      for (let i = 0; i < first.length; i += SLICE_CHARS) await handle.write(first.slice(i, i + SLICE_CHARS));
      at++;
      continue;
    }
    let end = at + 1;
    let size = first.length;
    while (end < lines.length && size + sizeOf(lines[end] as Line) <= WRITE_CHARS)
      size += sizeOf(lines[end++] as Line);
    await handle.write(end === at + 1 ? first : (lines.slice(at, end) as string[]).join(''));
    at = end;
  }
}
