// Reads many whole text files for Grep, whose regex runs in the worker: the host only fetches
// bytes, in parallel, skipping (with a reason) what the worker should not get.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FsReadManyResult } from '../../../shared/capabilities.js';
import { mapLimit } from './concurrency.js';
import { fsError } from './errors.js';
import { looksBinary } from './read.js';

/** Default per-file cap for batch reads: Grep skips files larger than this. */
export const DEFAULT_MAX_BYTES_PER_FILE = 1024 * 1024;
/** Files read at once: enough to saturate libuv's pool, few enough to bound open descriptors. */
const PARALLEL_READS = 32;

type One = { ok: true; content: string } | { ok: false; reason: string };

async function readOne(real: string, maxBytes: number): Promise<One> {
  let handle;
  try {
    // O_NONBLOCK: a FIFO among the paths must not park a libuv thread waiting for a writer.
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, reason: fsError(error, real).message };
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) return { ok: false, reason: 'a directory' };
    if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
    if (st.size > maxBytes) return { ok: false, reason: `too large (${st.size} bytes, cap ${maxBytes})` };
    const buf = await handle.readFile();
    if (buf.length > maxBytes)
      return { ok: false, reason: `too large (${buf.length} bytes, cap ${maxBytes})` };
    if (looksBinary(buf)) return { ok: false, reason: 'binary' };
    return { ok: true, content: buf.toString('utf8') };
  } catch (error) {
    return { ok: false, reason: fsError(error, real).message };
  } finally {
    await handle.close();
  }
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
    if (outcome.ok) result.files.push({ path, content: outcome.content });
    else result.skipped.push({ path, reason: outcome.reason });
  });
  return result;
}
