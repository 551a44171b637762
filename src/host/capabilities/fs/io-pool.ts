// The host's I/O threads, seen from the event loop: a small pool (one thread per core, at most
// two) started on first use and unreferenced while idle. Each request goes to the thread with the
// least waiting (or, for a caller spreading many, only to an idle one), so a Grep's batches are
// read on both cores at once. A thread that stalls in a syscall (a hung network mount) is
// abandoned: the request it is stuck in fails, and those queued behind it (other runs' among them)
// go to a new thread, which takes its place.
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CadreError, fromWire } from '../../../shared/errors.js';
import { DIST_DIR } from '../../pool/worker-flags.js';
import type { IoAnswer, IoRequest } from './io-thread.js';

/** The I/O thread's entry: its bundle, compiled through V8's code cache (scripts/io-loader.cjs). */
const IO_ENTRY = path.join(DIST_DIR, 'host-bundle', 'io-entry.cjs');
/**
 * A request the I/O thread has not answered in this long is stuck in a syscall (a hung network
 * mount): the thread is abandoned, that request fails, and the ones queued behind it are posted to
 * a new thread. (Walks stop by themselves well before: walk-limits.ts.)
 */
const IO_STALL_MS = 30_000;

/** Threads in the pool: enough to keep two cores reading, few enough to leave the rest alone. */
export const IO_THREADS = Math.max(1, Math.min(2, os.availableParallelism()));

/** A request as the pool takes it: the thread's request without its id. */
export type IoJob = IoRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Pending {
  /** The request, kept to post it again elsewhere if the thread is abandoned before starting it. */
  job: IoJob;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Takes the parts a streaming request posts before its answer. */
  partial: ((value: unknown) => void) | undefined;
}

/** One I/O thread and the requests it owes answers to. */
class IoThread {
  private readonly worker = new Worker(IO_ENTRY);
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Armed while requests wait; every answer re-arms it (requests are answered one at a time). */
  private watchdog: NodeJS.Timeout | undefined;
  dead = false;

  /** `pool` takes over the requests queued here when this thread stalls. */
  constructor(private readonly pool: IoPool) {
    this.worker.unref();
    this.worker.on('message', (m: IoAnswer) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if ('partial' in m) {
        this.arm();
        p.partial?.(m.partial);
        return;
      }
      this.pending.delete(m.id);
      this.arm();
      if (m.ok) p.resolve(m.value);
      else p.reject(fromWire(m.error));
    });
    this.worker.on('error', (error) => this.fail(`the I/O thread failed: ${error.message}`));
    this.worker.on('exit', (code) => this.fail(`the I/O thread exited (code ${code})`));
  }

  get waiting(): number {
    return this.pending.size;
  }

  /** When the thread last went from idle to busy (performance.now()). */
  busySince = 0;

  /** Whether a streaming request (a walk) is running or waiting here: it may take a while. */
  get streaming(): boolean {
    for (const p of this.pending.values()) if (p.partial) return true;
    return false;
  }

  call(job: IoJob, partial?: (value: unknown) => void): Promise<unknown> {
    return new Promise((resolve, reject) => this.adopt({ job, resolve, reject, partial }));
  }

  /** Posts a request (new, or taken over from an abandoned thread) and waits for its answer. */
  adopt(request: Pending): void {
    const id = this.nextId++;
    this.pending.set(id, request);
    if (this.pending.size === 1) {
      this.busySince = performance.now();
      this.arm();
    }
    this.worker.postMessage({ ...request.job, id } as IoRequest);
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
    const stallMs = this.pool.stallMs;
    this.watchdog = setTimeout(
      () => this.fail(`a batch of reads took over ${stallMs / 1000} s; a file system is not answering`, true),
      stallMs,
    );
    this.watchdog.unref();
  }

  /**
   * Abandons the thread. After a stall only the request it is stuck in fails (requests are answered
   * in order: the oldest one waiting); the rest, not started, go to another thread. After a crash
   * every request fails: any of them may be the cause.
   */
  private fail(message: string, stalled = false): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.watchdog);
    // A Map keeps insertion order: the oldest request (the one being answered) comes first.
    const [stuck, ...queued] = this.pending.values();
    this.pending.clear();
    this.worker.unref();
    void this.worker.terminate().catch(() => undefined);
    stuck?.reject(new CadreError('io_error', message));
    for (const p of queued) {
      if (!stalled) p.reject(new CadreError('io_error', message));
      else {
        try {
          this.pool.pick().adopt(p);
        } catch (error) {
          p.reject(
            new CadreError('io_error', `${message}; no other I/O thread could take over: ${String(error)}`),
          );
        }
      }
    }
  }
}

/**
 * How long the live threads must all have been busy before a request starts another one. Short
 * requests (the Globs of a fan-out, arriving together) queue on one thread instead of each
 * process paying for a second thread (about 35 ms of CPU and 13 MB) it does not need; a Grep's
 * batches spread over every slot through `ioCallIfIdle`.
 */
const SCALE_UP_AFTER_MS = 20;

/** Options of an I/O pool. */
export interface IoPoolOptions {
  /** A request unanswered this long abandons its thread (default 30 s, IO_STALL_MS). */
  stallMs?: number;
}

/** A pool of I/O threads. The host has one (`ioCall` and its siblings); tests make their own. */
export class IoPool {
  /** See `IoPoolOptions.stallMs`. */
  readonly stallMs: number;
  private readonly threads: (IoThread | undefined)[] = [];

  constructor(options: IoPoolOptions = {}) {
    this.stallMs = options.stallMs ?? IO_STALL_MS;
  }

  /** The thread in slot `i`, started (again) when the slot is empty or its thread died. */
  private slot(i: number): IoThread {
    let t = this.threads[i];
    if (!t || t.dead) {
      t = new IoThread(this);
      this.threads[i] = t;
    }
    return t;
  }

  /** The live thread with the fewest requests waiting, starting one where a slot is free or dead. */
  pick(): IoThread {
    let best: IoThread | undefined;
    for (let i = 0; i < IO_THREADS; i++) {
      const t = this.threads[i];
      // An empty slot is filled only when every live thread has been busy for a while.
      if (
        (!t || t.dead) &&
        best &&
        (best.waiting === 0 || performance.now() - best.busySince < SCALE_UP_AFTER_MS)
      )
        return best;
      const live = this.slot(i);
      if (!best || live.waiting < best.waiting) best = live;
    }
    return best as IoThread;
  }

  /** See `ioCallIfIdle`. */
  callIfIdle(job: IoJob, depth: number): Promise<unknown> | undefined {
    let best: IoThread | undefined;
    for (let i = 0; i < IO_THREADS; i++) {
      const t = this.slot(i);
      if (t.waiting < depth && !t.streaming && (!best || t.waiting < best.waiting)) best = t;
    }
    return best?.call(job);
  }

  /** See `ioPoolStats`. */
  stats(): { threads: number; busy: number } {
    const live = this.threads.filter((t): t is IoThread => t !== undefined && !t.dead);
    return { threads: live.length, busy: live.filter((t) => t.waiting > 0).length };
  }
}

/** The host's I/O pool, shared by every run. */
const sharedIoPool = new IoPool();

/**
 * Runs `job` on an I/O thread. Rejects with the CadreError the thread answered with, or with
 * `io_error` when the thread itself fails or stalls.
 */
export function ioCall<T>(job: IoJob, pool: IoPool = sharedIoPool): Promise<T> {
  return pool.pick().call(job) as Promise<T>;
}

/** As `ioCall`, for a request that posts parts of its result (`onPartial`) before the answer. */
export function ioStream<T, P>(job: IoJob, onPartial: (part: P) => void): Promise<T> {
  return sharedIoPool.pick().call(job, onPartial as (value: unknown) => void) as Promise<T>;
}

/**
 * As `ioCall` on a thread with fewer than `depth` requests waiting and no walk under way (starting
 * one where a slot is free), else undefined: callers that keep several requests going use it to
 * keep every thread fed without queueing behind a long walk.
 */
export function ioCallIfIdle<T>(job: IoJob, depth = 1): Promise<T> | undefined {
  return sharedIoPool.callIfIdle(job, depth) as Promise<T> | undefined;
}

/** The I/O threads alive, and how many of them have requests under way (for monitoring and tests). */
export function ioPoolStats(): { threads: number; busy: number } {
  return sharedIoPool.stats();
}
