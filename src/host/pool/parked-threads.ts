// Threads started before they are needed. While a run that may start subagents waits for its
// model, the pool starts threads that load the worker and then park: each waits on a port of its
// own for the one run the host gives it (src/shared/park.ts). A new run takes a parked thread, even
// one still loading (its run then waits on the port, not in the host), instead of starting one.
//
// How many: each source (a run whose model call is in flight) says how many threads it wants; the
// sum is kept parked, loading or idle in the pool, a few new threads loading at a time (one per
// core: a thread ready soon beats sixteen ready late). A child taking a thread lowers its
// parent's want by one; when the sources want fewer, the surplus is released, newest first, and
// goes back to the pool as ordinary idle threads (one still loading does so once loaded; the
// pool's idle timeout ends them).
//
// Isolation is unchanged: a parked thread is an ordinary pool thread (same flags and limits), it
// runs at most one run, and that run's signal aborts its task, which terminates the thread.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { ParkOrder, ParkTask, ThreadTask } from '../../shared/park.js';
import type { WorkerRunResult } from '../../shared/run-spec.js';

/** Starts a park task on a pool thread; the signal terminates it. */
export type StartPark = (task: ParkTask<MessagePort>, signal: AbortSignal) => Promise<WorkerRunResult | null>;

/** How many threads may load at once, how many more the pool may hold, how many sit idle. */
export interface ParkLimits {
  parallel: number;
  room(): number;
  /** Idle pool threads: a park task started now goes to one of them instead of a new thread. */
  idle(): number;
}

interface Slot {
  port: MessagePort;
  stop: AbortController;
  done: Promise<WorkerRunResult | null>;
  ready: boolean;
  /** Started a thread of its own (no idle pool thread was free to take it). */
  fresh: boolean;
}

/** A source's want expires after this long (a safety net: sources withdraw their wants). */
const WANT_TTL_MS = 60_000;

/** The parked threads of one pool. */
export class ParkedThreads {
  /** Unclaimed threads, oldest first. */
  private readonly slots: Slot[] = [];
  private readonly wants = new Map<string, { count: number; expires: NodeJS.Timeout }>();
  private closed = false;

  constructor(
    private readonly start: StartPark,
    private readonly limits: ParkLimits,
  ) {}

  /** Threads not yet given a run: loaded and waiting, or still loading. */
  get counts(): { ready: number; loading: number } {
    const ready = this.slots.filter((slot) => slot.ready).length;
    return { ready, loading: this.slots.length - ready };
  }

  /** Sets how many threads `source` wants parked (0 withdraws its want). */
  want(source: string, count: number): void {
    const old = this.wants.get(source);
    if (old) clearTimeout(old.expires);
    if (count > 0 && !this.closed) {
      const expires = setTimeout(() => this.want(source, 0), WANT_TTL_MS).unref();
      this.wants.set(source, { count, expires });
    } else this.wants.delete(source);
    this.balance();
  }

  /**
   * Gives `task` to a parked thread (a loaded one first, else the oldest still loading), lowering
   * the want of `source` (the run's parent). Undefined when none is parked: the caller starts one.
   */
  claim(
    task: ThreadTask<MessagePort>,
    signal: AbortSignal,
    source?: string,
  ): Promise<WorkerRunResult> | undefined {
    const ready = this.slots.findIndex((slot) => slot.ready);
    const slot = signal.aborted ? undefined : this.slots.splice(ready < 0 ? 0 : ready, 1)[0];
    const want = source === undefined ? undefined : this.wants.get(source);
    if (want && want.count > 1) want.count--;
    else if (want) this.want(source!, 0);
    this.balance();
    if (!slot) return undefined;
    const order: ParkOrder<MessagePort> = { type: 'run', task };
    slot.port.postMessage(order, [task.caps, task.control, task.model]);
    signal.addEventListener('abort', () => slot.stop.abort(signal.reason), { once: true });
    return slot.done.then((result) => {
      if (result === null) throw new Error('the worker thread ended its run without a result');
      return result;
    });
  }

  /** Stops every parked thread (the pool is closing). */
  close(): void {
    this.closed = true;
    for (const { expires } of this.wants.values()) clearTimeout(expires);
    this.wants.clear();
    for (const slot of this.slots.splice(0)) slot.stop.abort();
  }

  private wanted(): number {
    let sum = 0;
    for (const { count } of this.wants.values()) sum += count;
    return sum;
  }

  /**
   * Releases the surplus, newest first (the order waits on its port if the thread is still
   * loading), then starts what is missing, a few new threads at a time. Idle pool threads count as
   * available: a warm pool parks nothing, as a new run goes straight to an idle thread.
   */
  private balance(): void {
    const wanted = this.wanted();
    while (this.slots.length > wanted)
      this.slots.pop()!.port.postMessage({ type: 'release' } satisfies ParkOrder<MessagePort>);
    let loading = this.slots.filter((slot) => slot.fresh && !slot.ready).length;
    // A park task goes to an idle thread while there is one, so idle threads are parked first.
    while (
      this.slots.length + this.limits.idle() < wanted &&
      loading < this.limits.parallel &&
      this.limits.room() > 0
    ) {
      if (this.open()) loading++;
    }
  }

  /** Starts one park task; true when it starts a new thread (rather than reuse an idle one). */
  private open(): boolean {
    const { port1, port2 } = new MessageChannel();
    const stop = new AbortController();
    const fresh = this.limits.idle() === 0;
    const slot: Slot = { port: port1, stop, ready: false, fresh, done: Promise.resolve(null) };
    // Whatever the thread says first means it is loaded and waiting.
    port1.once('message', () => {
      slot.ready = true;
      this.balance();
    });
    slot.done = this.start({ park: port2 }, stop.signal);
    const forget = () => {
      port1.close();
      const at = this.slots.indexOf(slot);
      if (at < 0) return;
      this.slots.splice(at, 1);
      this.balance();
    };
    // A parked thread that ends unclaimed (released, stopped, crashed) just leaves the set.
    slot.done.then(forget, forget);
    this.slots.push(slot);
    return fresh;
  }
}
