// The files of one fs.readMany answer as text, whichever form they came in: one string per file
// (`files`), or one buffer for the whole batch (`packed`), decoded here one file at a time. With a
// plain-text needle, packed files whose bytes do not hold it are never decoded at all.
import type { FsReadManyResult } from '../../shared/capabilities.js';

/** One file's text. */
export interface FileText {
  path: string;
  content: string;
  mtimeMs: number | undefined;
}

// ignoreBOM keeps a leading byte-order mark in the text, as the host's Buffer decoding would.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The UTF-8 bytes every text holding `literal` holds too, or undefined when that does not follow:
 * a U+FFFD in the text may stand for bytes that were not valid UTF-8.
 */
export function needleFor(literal: string | undefined): Uint8Array | undefined {
  if (literal === undefined || literal === '' || literal.includes('\uFFFD')) return undefined;
  return new TextEncoder().encode(literal);
}

/**
 * Calls `visit` on each file read, in order, until it returns true; true when it did. With a
 * `needle` (from needleFor), packed files without it are skipped undecoded: they cannot match.
 */
export function visitFiles(
  result: FsReadManyResult,
  visit: (file: FileText) => boolean,
  needle?: Uint8Array,
): boolean {
  for (const file of result.files) if (visit({ ...file, mtimeMs: file.mtimeMs })) return true;
  const packed = result.packed;
  if (!packed) return false;
  const { paths, ends, mtimes, bytes } = packed;
  const open = (i: number): boolean => {
    const start = ends[i - 1] ?? 0;
    const content = decoder.decode(bytes.subarray(start, ends[i] ?? start));
    return visit({ path: paths[i] ?? '', content, mtimeMs: mtimes[i] });
  };
  if (needle === undefined) {
    for (let i = 0; i < paths.length; i++) if (open(i)) return true;
    return false;
  }
  // One scan of the whole buffer; a hit names the file it starts in (one straddling two files
  // is a false alarm, which the visitor's own test rejects).
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let i = 0, at = buffer.indexOf(needle); at !== -1 && i < paths.length;) {
    while (i < paths.length && (ends[i] ?? 0) <= at) i++;
    if (i >= paths.length) break;
    if (open(i)) return true;
    i++;
    at = buffer.indexOf(needle, ends[i - 1] ?? 0);
  }
  return false;
}
