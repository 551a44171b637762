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
import { assemble, splitAtCut, type Part } from './glob-read-assemble.js';
import type { JudgeContext, JudgedBatch } from './judge-read-sync.js';
import { DEFAULT_MAX_BYTES_PER_FILE, shape } from './read-many.js';
import { cancelSwitch, type CancelSwitch } from './walk-limits.js';

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
  if (options.signal?.aborted) return Promise.reject(cancelledError());
  return new Promise((resolve, reject) => {
    new GlobReadSearch(ctx, options, resolve, reject).start(rootReal, pattern, walk);
  });
}

function cancelledError(): CadreError {
  return new CadreError('cancelled', 'the run ended during the search');
}

/**
 * One search in progress: the walk's batches as they arrive, those handed to the I/O threads, the
 * bytes read and the budget reserved, and how it settles (once).
 */
class GlobReadSearch {
  private readonly parts: Part[] = [];
  /** Parts before this one are all sent. */
  private unsent = 0;
  private inFlight = 0;
  private readBytes = 0;
  /** Budget handed to the batches in flight. */
  private reserved = 0;
  private walked = false;
  private end: WalkEnd | undefined;
  private failure: unknown;
  private settled = false;
  private readonly maxBytes: number;
  private readonly budget: number;
  private readonly stop: CancelSwitch;
  private readonly onAbort = () => {
    this.failure ??= cancelledError();
    this.settle();
  };

  constructor(
    private readonly ctx: JudgeContext,
    private readonly options: GlobReadOptions,
    private readonly resolve: (result: GlobReadResult) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.maxBytes = options.maxBytesPerFile ?? DEFAULT_MAX_BYTES_PER_FILE;
    this.budget = options.budget ?? READ_MANY_BUDGET_BYTES;
    this.stop = cancelSwitch(options.signal);
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Starts the walk on an I/O thread; its batches are read as they come. */
  start(rootReal: string, pattern: string, walk: GlobWalkOptions): void {
    ioStream<WalkEnd, FoundBatch>(
      {
        kind: 'globStream',
        rootReal,
        pattern,
        options: { ...walk, cancel: this.stop.flag },
        batch: WALK_BATCH_FILES,
      },
      (found) => {
        this.parts.push({ found, sent: false });
        this.pump();
      },
    ).then(
      (last) => {
        if (last.paths.length > 0)
          this.parts.push({ found: { paths: last.paths, reals: last.reals }, sent: false });
        this.end = last;
        this.walked = true;
        this.pump();
      },
      (error: unknown) => {
        this.failure ??= error;
        this.walked = true;
        this.pump();
      },
    );
  }

  private finish(): void {
    this.settled = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.stop.dispose();
  }

  private hasUnsent(): boolean {
    while (this.parts[this.unsent]?.sent) this.unsent++;
    return this.unsent < this.parts.length;
  }

  /** Rejects on a failure; resolves once the walk is over and nothing more will be read. */
  private settle(): void {
    if (this.settled) return;
    if (this.failure !== undefined) {
      // The walk is no longer wanted: it stops at its next check.
      this.stop.set();
      this.finish();
      this.reject(this.failure);
      return;
    }
    if (!this.walked || this.inFlight > 0 || (this.hasUnsent() && this.readBytes < this.budget)) return;
    this.finish();
    try {
      this.resolve(this.result());
    } catch (error) {
      this.reject(error);
    }
  }

  /** The answers put together, in path order, within the budget. */
  private result(): GlobReadResult {
    const { parts } = this;
    const { part, labels, deferred, allowed } = assemble(
      parts.map((p) => p.found),
      parts.map((p) => p.answer),
      this.budget,
    );
    const result = shape(part, labels, this.options.packed ?? false);
    if (deferred.length > 0) result.deferred = deferred;
    result.truncated = this.end?.truncated ?? false;
    if (this.end && this.end.notices.length > 0) result.notices = this.end.notices;
    const found = parts.reduce((n, p) => n + p.found.paths.length, 0);
    return { result, found, allowed, bytesRead: this.readBytes };
  }

  /**
   * Hands batches out: two per thread (one read, one waiting, so no thread waits for the next one
   * to be handed out), none behind the walk; always one going.
   */
  private pump(): void {
    try {
      while (
        !this.settled &&
        this.hasUnsent() &&
        this.readBytes + this.reserved < this.budget &&
        this.inFlight < IN_FLIGHT
      ) {
        if (!this.send(this.parts[this.unsent] as Part)) break;
      }
    } catch (error) {
      // A thread that cannot even start: the search fails, the host goes on.
      this.failure ??= error;
    }
    this.settle();
  }

  /** Sends one batch to an I/O thread; false when none is idle enough to take it. */
  private send(part: Part): boolean {
    // Each batch gets its share of what is left, so those in flight read no more than the budget
    // together (and one file each at least).
    const left = this.budget - this.readBytes - this.reserved;
    const share = Math.max(1, Math.floor(left / (IN_FLIGHT - this.inFlight)));
    const job = {
      kind: 'judgeReadFound' as const,
      found: part.found,
      ctx: this.ctx,
      maxBytes: this.maxBytes,
      budget: share,
    };
    const call =
      this.inFlight === 0 ? ioCall<JudgedBatch>(job) : ioCallIfIdle<JudgedBatch>(job, QUEUED_PER_THREAD);
    if (!call) return false;
    part.sent = true;
    this.inFlight++;
    this.reserved += share;
    void call
      .then(
        (answer) => this.answered(part, answer),
        (error: unknown) => {
          this.failure ??= error;
        },
      )
      .finally(() => {
        this.inFlight--;
        this.reserved -= share;
        this.pump();
      });
    return true;
  }

  private answered(part: Part, answer: JudgedBatch): void {
    part.answer = answer;
    this.readBytes += answer.bytes.length;
    const cutAt = answer.deferred[0];
    // Stopped at its share while the budget is not spent: the rest goes out again.
    if (cutAt !== undefined && this.readBytes < this.budget) {
      const at = this.parts.indexOf(part) + 1;
      this.parts.splice(at, 0, splitAtCut(part, answer, cutAt));
      this.unsent = Math.min(this.unsent, at);
    }
  }
}
