// Reads one text file for the Read tool: whole, or a range of lines streamed so a huge log can be
// paged through without loading it. Refuses binaries, directories and oversized whole reads.
import { assertOpened, type OpenCheck } from './pin.js';
import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { FsReadResult } from '../../../shared/capabilities.js';
import { CadreError } from '../../../shared/errors.js';
import { fsError } from './errors.js';
import { SNIFF_BYTES } from './sniff.js';

/** Default cap on bytes returned by one read (a whole file, or the lines of a range). */
const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;
/** How much of a file is sniffed for a NUL byte to call it binary (git's heuristic). */
const BINARY_SNIFF_BYTES = 8192;
const CHUNK_BYTES = 256 * 1024;

/** Options of `readText`. `offset` is the 1-based first line, `limit` a line count. */
export interface ReadTextOptions {
  offset?: number;
  limit?: number;
  /** Cap on bytes returned (default 10 MiB). */
  maxBytes?: number;
  /**
   * Judges what the file begins with (its first `SNIFF_BYTES`) before anything is returned; throws
   * to refuse the file (a private key under an innocent name, one of cadre's records).
   */
  judgeHead?: (head: Uint8Array) => void;
  /** How the opened file is checked (pin.ts; default: as probed). */
  openCheck?: OpenCheck;
}

/** True when the sniffed prefix of a file holds a NUL byte. */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Counts lines the way editors number them: a final newline does not start another line. */
export function countLines(buf: Buffer): number {
  if (buf.length === 0) return 0;
  let lines = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
  return buf[buf.length - 1] === 10 ? lines : lines + 1;
}

function checkLineArg(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new CadreError('invalid_input', `${name} must be a positive integer (got ${value})`);
  }
}

/**
 * Reads the text file at `real` (an already-checked real path). Errors: `not_found`,
 * `invalid_input` (a directory or not a regular file), `binary_file`, `too_large` (a whole read
 * over `maxBytes`, with a hint to page with offset/limit).
 */
export async function readText(real: string, options: ReadTextOptions = {}): Promise<FsReadResult> {
  const { offset, limit } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  checkLineArg('offset', offset);
  checkLineArg('limit', limit);
  // stat before open: opening a FIFO would block a libuv thread until a writer appears.
  const st = await stat(real).catch((error: unknown) => {
    throw fsError(error, real);
  });
  if (st.isDirectory())
    throw new CadreError('invalid_input', `${real} is a directory, use LS to list it`, { path: real });
  if (!st.isFile()) throw new CadreError('invalid_input', `${real} is not a regular file`, { path: real });
  const ranged = offset !== undefined || limit !== undefined;
  if (!ranged && st.size > maxBytes) {
    throw new CadreError(
      'too_large',
      `${real} is ${st.size} bytes, over the ${maxBytes}-byte read cap; read part of it with offset and limit`,
      { path: real, size: st.size, maxBytes },
    );
  }
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fsError(error, real);
  }
  try {
    await assertOpened(handle.fd, real, options.openCheck);
    const base = { path: real, size: st.size, mtimeMs: st.mtimeMs };
    if (!ranged) {
      const buf = await handle.readFile();
      if (looksBinary(buf)) throw binary(real);
      options.judgeHead?.(buf.subarray(0, SNIFF_BYTES));
      return {
        ...base,
        content: buf.toString('utf8'),
        startLine: 1,
        totalLines: countLines(buf),
        truncated: false,
      };
    }
    return {
      ...base,
      ...(await readLines(
        handle,
        real,
        { offset: offset ?? 1, limit: limit ?? Number.MAX_SAFE_INTEGER, maxBytes, size: st.size },
        options.judgeHead,
      )),
    };
  } catch (error) {
    throw fsError(error, real);
  } finally {
    await handle.close();
  }
}

function binary(real: string): CadreError {
  return new CadreError(
    'binary_file',
    `${real} is a binary file (it contains a NUL byte); it cannot be read as text`,
    {
      path: real,
    },
  );
}

/** Streams the file once: keeps lines [offset, offset + limit) up to `maxBytes`, counts all lines. */
async function readLines(
  handle: FileHandle,
  real: string,
  range: { offset: number; limit: number; maxBytes: number; size: number },
  judgeHead: ReadTextOptions['judgeHead'],
): Promise<Pick<FsReadResult, 'content' | 'startLine' | 'totalLines' | 'truncated'>> {
  const { offset, limit, maxBytes } = range;
  // Chunks no larger than the file (plus a byte, to see its end at once): a 256 KB buffer per
  // chunk for a 20-byte file made sixteen parallel reads hold 8 MB until the next collection.
  const chunkBytes = Math.min(CHUNK_BYTES, range.size + 1);
  const end = offset + limit; // first line not wanted
  const parts: Buffer[] = [];
  let kept = 0;
  let keptLines = 0;
  let capped = false;
  let line = 1;
  let position = 0;
  let lastByte = -1;
  for (;;) {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    if (position === 0 && looksBinary(chunk)) throw binary(real);
    if (position === 0) judgeHead?.(chunk.subarray(0, SNIFF_BYTES));
    position += bytesRead;
    lastByte = chunk[bytesRead - 1] ?? -1;
    for (let at = 0; at < bytesRead;) {
      const nl = chunk.indexOf(10, at);
      const stop = nl === -1 ? bytesRead : nl + 1;
      if (line >= offset && line < end && !capped) {
        if (kept + (stop - at) > maxBytes) {
          // A single line over the cap still yields its head, so the reader sees something.
          if (kept === 0) parts.push(chunk.subarray(at, at + maxBytes));
          capped = true;
        } else {
          parts.push(chunk.subarray(at, stop));
          kept += stop - at;
          keptLines = line - offset + 1;
        }
      }
      if (nl !== -1) line++;
      at = stop;
    }
  }
  const totalLines = position === 0 ? 0 : lastByte === 10 ? line - 1 : line;
  const lastShown = offset + keptLines - 1;
  return {
    content: Buffer.concat(parts).toString('utf8'),
    startLine: offset,
    totalLines,
    truncated: capped || lastShown < totalLines,
  };
}
