// The files of one fs.readMany answer as text, whichever form they came in: one string per file
// (`files`), or one buffer for the whole batch (`packed`), decoded here, one file at a time, only
// as far as the search goes.
import type { FsReadManyResult } from '../../shared/capabilities.js';

/** One file's text. */
export interface FileText {
  path: string;
  content: string;
  mtimeMs: number | undefined;
}

// ignoreBOM keeps a leading byte-order mark in the text, as the host's Buffer decoding would.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Calls `visit` on each file read, in order, until it returns true; true when it did. */
export function visitFiles(result: FsReadManyResult, visit: (file: FileText) => boolean): boolean {
  for (const file of result.files) if (visit({ ...file, mtimeMs: file.mtimeMs })) return true;
  const packed = result.packed;
  if (!packed) return false;
  for (let i = 0; i < packed.paths.length; i++) {
    const start = packed.ends[i - 1] ?? 0;
    const content = decoder.decode(packed.bytes.subarray(start, packed.ends[i] ?? start));
    if (visit({ path: packed.paths[i] ?? '', content, mtimeMs: packed.mtimes[i] })) return true;
  }
  return false;
}
