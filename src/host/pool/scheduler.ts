// The concurrency cap: a run takes a slot to be active. A parent blocked on a child lends its slot
// back while it waits, and waiting runs are served deepest first, so nested trees finish instead
// of deadlocking a small pool. Past the queue bound, callers are refused at once.
import { CadreError } from '../../shared/errors.js';

interface Waiter {
  depth: number;
  seq: number;
  resolve: () => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/** Slots for active runs. */
export class Scheduler {
  private active = 0;
  private seq = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly cap: number,
    private readonly queueLimit: number,
  ) {}

  /** Runs active now. */
  get running(): number {
    return this.active;
  }

  /** Runs waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Slots no run holds or waits for. */
  get free(): number {
    return Math.max(0, this.cap - this.active - this.waiting.length);
  }

  /**
   * Waits for a slot. Deeper runs (children) and returning parents are served first. A returning
   * parent already holds a thread, so it bypasses the queue bound rather than fail mid-run.
   */
  acquire(depth: number, signal?: AbortSignal, bypassQueueLimit = false): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.active < this.cap && this.waiting.length === 0) {
      this.active++;
      return Promise.resolve();
    }
    if (!bypassQueueLimit && this.waiting.length >= this.queueLimit) {
      return Promise.reject(
        new CadreError(
          'limit_reached',
          `limit reached — do not retry: ${this.active} agents running and ${this.waiting.length} queued (queue limit ${this.queueLimit})`,
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        depth,
        seq: this.seq++,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal?.reason as Error);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Frees a slot and hands it to the best waiter. */
  release(): void {
    this.active = Math.max(0, this.active - 1);
    this.dispatch();
  }

  private dispatch(): void {
    while (this.active < this.cap && this.waiting.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) {
        const w = this.waiting[i];
        const b = this.waiting[best];
        if (w && b && (w.depth > b.depth || (w.depth === b.depth && w.seq < b.seq))) best = i;
      }
      const [next] = this.waiting.splice(best, 1);
      if (!next) return;
      next.signal?.removeEventListener('abort', next.onAbort);
      this.active++;
      next.resolve();
    }
  }
}
