// Reads many whole text files for Grep, whose regex runs in the worker: the host only fetches
// bytes, skipping (with a reason) what the worker should not get. The work runs on the host's I/O
// threads with synchronous calls (read-batch-sync.ts, judge-read-sync.ts); this side only shapes
// their answers into what the capability returns.
import { READ_MANY_BUDGET_BYTES, type FsReadManyResult } from '../../../shared/capabilities.js';
import { ioCall, type IoPool } from './io-pool.js';
import type { JudgeContext, JudgedBatch } from './judge-read-sync.js';
import type { PackedBatch } from './read-batch-sync.js';

/** Default per-file cap for batch reads: Grep skips files larger than this. */
export const DEFAULT_MAX_BYTES_PER_FILE = 1024 * 1024;

/** Files read, by index, with their bytes: what every kind of batch has in common. */
export type ReadPart = Pick<PackedBatch, 'read' | 'ends' | 'mtimes' | 'bytes' | 'skipped'>;

/** Turns a batch's indexes into the capability's result, with `labels` as the paths. */
export function shape(part: ReadPart, labels: readonly string[], packed: boolean): FsReadManyResult {
  const label = (i: number) => labels[i] ?? '';
  const skipped = part.skipped.map((s) => ({ path: label(s.index), reason: s.reason }));
  if (packed) {
    const paths = part.read.map(label);
    return { files: [], packed: { paths, ends: part.ends, mtimes: part.mtimes, bytes: part.bytes }, skipped };
  }
  const text = Buffer.from(part.bytes.buffer, part.bytes.byteOffset, part.bytes.length);
  const files = part.read.map((index, k) => ({
    path: label(index),
    content: text.toString('utf8', part.ends[k - 1] ?? 0, part.ends[k]),
    mtimeMs: part.mtimes[k] ?? 0,
  }));
  return { files, skipped };
}

/**
 * Reads each of `reals` (already-checked real paths) whole, up to `budget` bytes in all: the tail
 * past it comes back as `deferred`. Paths in the result are `labels` (default: the real paths), by
 * position. Never fails for one bad file: binary, oversized, missing or unreadable files land in
 * `skipped` with the reason. Order is preserved. Rejects with `io_error` only when the I/O thread
 * itself fails or stalls.
 */
export async function readMany(
  reals: readonly string[],
  maxBytesPerFile = DEFAULT_MAX_BYTES_PER_FILE,
  budget = READ_MANY_BUDGET_BYTES,
  labels: readonly string[] = reals,
): Promise<FsReadManyResult> {
  if (reals.length === 0) return { files: [], skipped: [] };
  const batch = await ioCall<PackedBatch>({
    kind: 'read',
    reals: [...reals],
    maxBytes: maxBytesPerFile,
    budget,
  });
  const result = shape(batch, labels, false);
  if (batch.handled < reals.length) result.deferred = labels.slice(batch.handled);
  return result;
}

/**
 * Resolves the requested `paths`, judges each with the policy under `ctx` and reads the allowed
 * ones, all on an I/O thread (the same steps, and the same policy function, as the event loop
 * would run). Denied paths are skipped with the policy's reason; the rest is as `readMany`.
 * Rejects with `invalid_input` for a path that cannot be resolved (NUL byte, symlink loop). `io`
 * is the host's I/O pool unless a test passes one of its own.
 */
export async function judgeReadMany(
  paths: readonly string[],
  ctx: JudgeContext,
  options: { maxBytesPerFile?: number; packed?: boolean; budget?: number } = {},
  io?: IoPool,
): Promise<{ result: FsReadManyResult; allowed: number }> {
  if (paths.length === 0) return { result: { files: [], skipped: [] }, allowed: 0 };
  const batch = await ioCall<JudgedBatch>(
    {
      kind: 'judgeRead',
      paths: [...paths],
      ctx,
      maxBytes: options.maxBytesPerFile ?? DEFAULT_MAX_BYTES_PER_FILE,
      budget: options.budget ?? READ_MANY_BUDGET_BYTES,
    },
    io,
  );
  const result = shape(batch, paths, options.packed ?? false);
  if (batch.deferred.length > 0) result.deferred = batch.deferred.map((i) => paths[i] ?? '');
  return { result, allowed: batch.allowed };
}
