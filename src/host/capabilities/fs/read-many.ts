// Reads many whole text files for Grep, whose regex runs in the worker: the host only fetches
// bytes, in parallel, skipping (with a reason) what the worker should not get.
import { checkOpened } from './pin.js';
import fs, { constants } from 'node:fs';
import type { FsReadManyResult } from '../../../shared/capabilities.js';
import { mapLimit } from './concurrency.js';
import { fsError } from './errors.js';
import { looksBinary } from './read.js';

/** Default per-file cap for batch reads: Grep skips files larger than this. */
export const DEFAULT_MAX_BYTES_PER_FILE = 1024 * 1024;
/** Files read at once: enough to saturate libuv's pool, few enough to bound open descriptors. */
const PARALLEL_READS = 64;

type One = { ok: true; content: string; mtimeMs: number } | { ok: false; reason: string };

/**
 * One file with the callback API: open, fstat, one read, close. The promise API's FileHandle costs
 * several times more per file, which dominates when Grep reads thousands of small files.
 */
function readOne(real: string, maxBytes: number): Promise<One> {
  return new Promise((resolve) => {
    const failed = (error: unknown) => resolve({ ok: false, reason: fsError(error, real).message });
    // O_NONBLOCK: a FIFO among the paths must not park a libuv thread waiting for a writer.
    fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK, (openError, fd) => {
      if (openError) return failed(openError);
      const done = (outcome: One) => fs.close(fd, () => resolve(outcome));
      checkOpened(fd, real, (racedError) => {
        if (racedError) return done({ ok: false, reason: racedError.message });
        readOpened(fd, real, maxBytes, done);
      });
    });
  });
}

/** fstat, one read and the checks, on an open descriptor. */
function readOpened(fd: number, real: string, maxBytes: number, done: (outcome: One) => void): void {
  fs.fstat(fd, (statError, st) => {
    if (statError) return done({ ok: false, reason: fsError(statError, real).message });
    if (st.isDirectory()) return done({ ok: false, reason: 'a directory' });
    if (!st.isFile()) return done({ ok: false, reason: 'not a regular file' });
    if (st.size > maxBytes)
      return done({ ok: false, reason: `too large (${st.size} bytes, cap ${maxBytes})` });
    // One byte more than the size says: a file that grew past the cap since fstat is caught.
    const buf = Buffer.allocUnsafe(Math.min(st.size, maxBytes) + 1);
    fs.read(fd, buf, 0, buf.length, 0, (readError, bytes) => {
      if (readError) return done({ ok: false, reason: fsError(readError, real).message });
      if (bytes > maxBytes) return done({ ok: false, reason: `too large (more than ${maxBytes} bytes)` });
      if (bytes > st.size) return done({ ok: false, reason: 'changed while being read' });
      const data = buf.subarray(0, bytes);
      if (looksBinary(data)) return done({ ok: false, reason: 'binary' });
      done({ ok: true, content: data.toString('utf8'), mtimeMs: st.mtimeMs });
    });
  });
}

/**
 * Reads each of `reals` (already-checked real paths) whole. Never throws for one bad file: binary,
 * oversized, missing or unreadable files land in `skipped` with the reason. Order is preserved.
 */
export async function readMany(
  reals: readonly string[],
  maxBytesPerFile = DEFAULT_MAX_BYTES_PER_FILE,
): Promise<FsReadManyResult> {
  const outcomes = await mapLimit(reals, PARALLEL_READS, (real) => readOne(real, maxBytesPerFile));
  const result: FsReadManyResult = { files: [], skipped: [] };
  outcomes.forEach((outcome, i) => {
    const path = reals[i] ?? '';
    if (outcome.ok) result.files.push({ path, content: outcome.content, mtimeMs: outcome.mtimeMs });
    else result.skipped.push({ path, reason: outcome.reason });
  });
  return result;
}
