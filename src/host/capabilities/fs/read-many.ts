// Reads many whole text files for Grep, whose regex runs in the worker: the host only fetches
// bytes, skipping (with a reason) what the worker should not get. The reads run on the host's I/O
// thread with synchronous calls (read-batch-sync.ts); this side queues requests and watches it.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CadreError } from '../../../shared/errors.js';
import { READ_MANY_BUDGET_BYTES, type FsReadManyResult } from '../../../shared/capabilities.js';
import { DIST_DIR } from '../../pool/worker-flags.js';
import type { IoRequest } from './io-thread.js';
import type { ReadOutcome } from './read-batch-sync.js';

/** Default per-file cap for batch reads: Grep skips files larger than this. */
export const DEFAULT_MAX_BYTES_PER_FILE = 1024 * 1024;
/** The compiled I/O thread. */
const IO_ENTRY = path.join(DIST_DIR, 'host', 'capabilities', 'fs', 'io-thread.js');
/**
 * A batch the I/O thread has not answered in this long is stuck in a syscall (a hung network
 * mount): the thread is abandoned, its requests fail, and the next request gets a new thread.
 */
export const IO_STALL_MS = 30_000;

interface Pending {
  resolve: (outcomes: ReadOutcome[]) => void;
  reject: (error: Error) => void;
}

/** One I/O thread, started on first use and unreferenced while idle. */
class IoThread {
  private readonly worker = new Worker(IO_ENTRY);
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Armed while requests wait; every answer re-arms it (requests are answered one at a time). */
  private watchdog: NodeJS.Timeout | undefined;
  dead = false;

  constructor() {
    this.worker.unref();
    this.worker.on('message', (m: { id: number; outcomes: ReadOutcome[] }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      this.arm();
      p.resolve(m.outcomes);
    });
    this.worker.on('error', (error) => this.fail(`the I/O thread failed: ${error.message}`));
    this.worker.on('exit', (code) => this.fail(`the I/O thread exited (code ${code})`));
  }

  read(reals: string[], maxBytes: number, budget: number): Promise<ReadOutcome[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.arm();
      this.worker.postMessage({ id, reals, maxBytes, budget } satisfies IoRequest);
    });
  }

  /** Restarts the stall clock while requests wait, stops it (and unrefs the thread) when none do. */
  private arm(): void {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
    if (this.pending.size === 0) {
      this.worker.unref();
      return;
    }
    this.worker.ref();
    this.watchdog = setTimeout(
      () => this.fail(`a batch of reads took over ${IO_STALL_MS / 1000} s; a file system is not answering`),
      IO_STALL_MS,
    );
    this.watchdog.unref();
  }

  private fail(message: string): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.watchdog);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(new CadreError('io_error', message));
    this.worker.unref();
    void this.worker.terminate().catch(() => undefined);
  }
}

let thread: IoThread | undefined;

function ioThread(): IoThread {
  if (!thread || thread.dead) thread = new IoThread();
  return thread;
}

/**
 * Reads each of `reals` (already-checked real paths) whole, up to `budget` bytes in all: the tail
 * past it comes back as `deferred`. Paths in the result are `labels` (default: the real paths). Never fails for one bad file: binary,
 * oversized, missing or unreadable files land in `skipped` with the reason. Order is preserved.
 * Rejects with `io_error` only when the I/O thread itself fails or stalls.
 */
export async function readMany(
  reals: readonly string[],
  maxBytesPerFile = DEFAULT_MAX_BYTES_PER_FILE,
  budget = READ_MANY_BUDGET_BYTES,
  labels: readonly string[] = reals,
): Promise<FsReadManyResult> {
  const outcomes = reals.length === 0 ? [] : await ioThread().read([...reals], maxBytesPerFile, budget);
  const result: FsReadManyResult = { files: [], skipped: [] };
  // Results carry `labels[i]` (by position: two names can share one real path).
  outcomes.forEach((outcome, i) => {
    const path = labels[i] ?? reals[i] ?? '';
    if (outcome.ok) result.files.push({ path, content: outcome.content, mtimeMs: outcome.mtimeMs });
    else result.skipped.push({ path, reason: outcome.reason });
  });
  if (outcomes.length < reals.length) result.deferred = labels.slice(outcomes.length);
  return result;
}
