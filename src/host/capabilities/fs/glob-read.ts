// Grep's search in one pass: the walk (glob-walk-sync.ts, on one I/O thread) hands its files over
// in batches as it finds them, and each batch is judged by the policy and read (judge-read-sync.ts)
// on whichever I/O thread is idle, while the walk goes on. The paths never travel to the agent's
// worker and back, nor are they resolved twice. This side, on the host's event loop, only hands
// batches out and puts the answers together, in path order, within the call's byte budget: the
// batches in flight share what is left of it, so one call reads little more than it returns. When
// the run ends the call gives up at once and the walk stops at its next check (walk-limits.ts).
import { READ_MANY_BUDGET_BYTES, type FsReadManyResult } from '../../../shared/capabilities.js';
import { CadreError } from '../../../shared/errors.js';
import type { GlobWalkOptions } from './glob-walk-sync.js';
import { IO_THREADS, ioCall, ioCallIfIdle, ioStream } from './io-pool.js';
import type { FoundBatch, WalkEnd } from './io-thread.js';
import type { JudgeContext, JudgedBatch } from './judge-read-sync.js';
import { DEFAULT_MAX_BYTES_PER_FILE, shape, type ReadPart } from './read-many.js';
import { cancelSwitch } from './walk-limits.js';

/** Files per batch handed from the walk to the reads: a few milliseconds of reading each. */
export const WALK_BATCH_FILES = 256;
/** Batches given to one I/O thread at once. */
const QUEUED_PER_THREAD = 2;
/** Batches in flight at once. */
const IN_FLIGHT = IO_THREADS * QUEUED_PER_THREAD;

/** What `globRead` returns: the capability's result, and counts for the audit log. */
export interface GlobReadResult {
  result: FsReadManyResult;
  /** Files the walk found. */
  found: number;
  /** Of those judged, how many the policy allowed. */
  allowed: number;
  /** Bytes the I/O threads read for the call: a little more than the result holds at most. */
  bytesRead: number;
}

/** Options of `globRead`. */
export interface GlobReadOptions {
  maxBytesPerFile?: number;
  /** Bytes of content in the result at most (one file always); the rest comes back `deferred`. */
  budget?: number;
  packed?: boolean;
  /** Once aborted (the run has ended), rejects with `cancelled` at once and stops the walk. */
  signal?: AbortSignal;
}

/** Files the walk found, and the answer of the batch read that judged and read them. */
interface Part {
  found: FoundBatch;
  answer?: JudgedBatch;
  sent: boolean;
}

/**
 * Splits `part`, whose answer stopped at its share of the budget while budget is left, into the
 * files it handled and the rest (returned, to be sent again); the rest will be judged again.
 */
function splitAtCut(part: Part, answer: JudgedBatch, cutAt: number): Part {
  const { paths, reals } = part.found;
  part.found = { paths: paths.slice(0, cutAt), reals: reals.slice(0, cutAt) };
  part.answer = {
    ...answer,
    skipped: answer.skipped.filter((s) => s.index < cutAt),
    deferred: [],
    // Every allowed file past the cut was deferred.
    allowed: answer.allowed - answer.deferred.length,
  };
  return { found: { paths: paths.slice(cutAt), reals: reals.slice(cutAt) }, sent: false };
}

/**
 * Puts the batches' answers together in order, up to `budget` bytes of content (at least one
 * file), as one batch with indexes into `labels`; everything from the first file that did not fit
 * (or was not read) on is `deferred`, to be asked for again by path.
 */
function assemble(
  batches: readonly FoundBatch[],
  answers: readonly (JudgedBatch | undefined)[],
  budget: number,
): { part: ReadPart; labels: string[]; deferred: string[]; allowed: number } {
  const labels: string[] = [];
  const part: ReadPart = { read: [], ends: [], mtimes: [], bytes: new Uint8Array(0), skipped: [] };
  const pieces: Uint8Array[] = [];
  const deferred: string[] = [];
  let total = 0;
  let allowed = 0;
  let cut = false;
  batches.forEach((batch, k) => {
    const answer = answers[k];
    if (cut || !answer) {
      cut = true;
      deferred.push(...batch.paths);
      return;
    }
    let cutAt = answer.deferred[0] ?? batch.paths.length;
    let taken = 0;
    for (; taken < answer.read.length; taken++) {
      const index = answer.read[taken] ?? 0;
      if (index >= cutAt) break;
      if (part.read.length > 0 && total >= budget) {
        cutAt = index;
        break;
      }
      const end = answer.ends[taken] ?? 0;
      total += end - (answer.ends[taken - 1] ?? 0);
      part.read.push(labels.length + index);
      part.ends.push(total);
      part.mtimes.push(answer.mtimes[taken] ?? 0);
    }
    pieces.push(answer.bytes.subarray(0, answer.ends[taken - 1] ?? 0));
    for (const s of answer.skipped)
      if (s.index < cutAt) part.skipped.push({ index: labels.length + s.index, reason: s.reason });
    labels.push(...batch.paths.slice(0, cutAt));
    deferred.push(...batch.paths.slice(cutAt));
    allowed += answer.allowed;
    cut = cutAt < batch.paths.length;
  });
  part.bytes = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    part.bytes.set(piece, at);
    at += piece.length;
  }
  return { part, labels, deferred, allowed };
}

/**
 * Reads the files a glob finds under `rootReal` (an already-checked real directory), in path
 * order, each judged by the policy under `ctx` as `fs.readMany` (denied ones are skipped with the
 * reason, never read). The result's `truncated` says the walk stopped at its cap; files past the
 * byte budget come back as `deferred`. Rejects with `invalid_input` for a bad pattern, `cancelled`
 * once `signal` aborts, and `io_error` when an I/O thread fails or stalls.
 */
export function globRead(
  rootReal: string,
  pattern: string,
  walk: GlobWalkOptions,
  ctx: JudgeContext,
  options: GlobReadOptions = {},
): Promise<GlobReadResult> {
  const { signal } = options;
  const cancelled = () => new CadreError('cancelled', 'the run ended during the search');
  if (signal?.aborted) return Promise.reject(cancelled());
  const maxBytes = options.maxBytesPerFile ?? DEFAULT_MAX_BYTES_PER_FILE;
  const budget = options.budget ?? READ_MANY_BUDGET_BYTES;
  const parts: Part[] = [];
  /** Parts before this one are all sent. */
  let unsent = 0;
  let inFlight = 0;
  let readBytes = 0;
  /** Budget handed to the batches in flight. */
  let reserved = 0;
  let walked = false;
  let end: WalkEnd | undefined;
  let failure: unknown;
  let settled = false;
  const stop = cancelSwitch(signal);

  return new Promise((resolve, reject) => {
    const onAbort = () => {
      failure ??= cancelled();
      settle();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      stop.dispose();
    };
    const hasUnsent = () => {
      while (parts[unsent]?.sent) unsent++;
      return unsent < parts.length;
    };
    const settle = () => {
      if (settled) return;
      if (failure !== undefined) {
        // The walk is no longer wanted: it stops at its next check.
        stop.set();
        finish();
        reject(failure);
        return;
      }
      if (!walked || inFlight > 0 || (hasUnsent() && readBytes < budget)) return;
      finish();
      try {
        const { part, labels, deferred, allowed } = assemble(
          parts.map((p) => p.found),
          parts.map((p) => p.answer),
          budget,
        );
        const result = shape(part, labels, options.packed ?? false);
        if (deferred.length > 0) result.deferred = deferred;
        result.truncated = end?.truncated ?? false;
        if (end && end.notices.length > 0) result.notices = end.notices;
        const found = parts.reduce((n, p) => n + p.found.paths.length, 0);
        resolve({ result, found, allowed, bytesRead: readBytes });
      } catch (error) {
        reject(error);
      }
    };
    // Two batches per thread (one read, one waiting, so no thread waits for the next one to be
    // handed out), none behind the walk; always one going.
    const pump = () => {
      try {
        while (!settled && hasUnsent() && readBytes + reserved < budget && inFlight < IN_FLIGHT) {
          const part = parts[unsent] as Part;
          // Each batch gets its share of what is left, so those in flight read no more than the
          // budget together (and one file each at least).
          const share = Math.max(1, Math.floor((budget - readBytes - reserved) / (IN_FLIGHT - inFlight)));
          const job = { kind: 'judgeReadFound' as const, found: part.found, ctx, maxBytes, budget: share };
          const call =
            inFlight === 0 ? ioCall<JudgedBatch>(job) : ioCallIfIdle<JudgedBatch>(job, QUEUED_PER_THREAD);
          if (!call) break;
          part.sent = true;
          inFlight++;
          reserved += share;
          void call
            .then(
              (answer) => {
                part.answer = answer;
                readBytes += answer.bytes.length;
                const cutAt = answer.deferred[0];
                // Stopped at its share while the budget is not spent: the rest goes out again.
                if (cutAt !== undefined && readBytes < budget) {
                  const at = parts.indexOf(part) + 1;
                  parts.splice(at, 0, splitAtCut(part, answer, cutAt));
                  unsent = Math.min(unsent, at);
                }
              },
              (error: unknown) => {
                failure ??= error;
              },
            )
            .finally(() => {
              inFlight--;
              reserved -= share;
              pump();
            });
        }
      } catch (error) {
        // A thread that cannot even start: the search fails, the host goes on.
        failure ??= error;
      }
      settle();
    };
    ioStream<WalkEnd, FoundBatch>(
      {
        kind: 'globStream',
        rootReal,
        pattern,
        options: { ...walk, cancel: stop.flag },
        batch: WALK_BATCH_FILES,
      },
      (found) => {
        parts.push({ found, sent: false });
        pump();
      },
    ).then(
      (last) => {
        if (last.paths.length > 0)
          parts.push({ found: { paths: last.paths, reals: last.reals }, sent: false });
        end = last;
        walked = true;
        pump();
      },
      (error: unknown) => {
        failure ??= error;
        walked = true;
        pump();
      },
    );
  });
}
