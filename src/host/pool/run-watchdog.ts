// One run's clocks: the wall-clock deadline with its grace turn (paused while a person answers an
// approval), an absolute ceiling that no pause stretches, the idle watchdog, and the heap sampler.
// Each says why the run must stop through one callback; the clock is injected so tests drive time.
import { Deadline, graceOffsetMs, systemClock, type Clock } from './deadline.js';
import type { KillReason } from './run-end.js';

/** The deadline's clock plus the repeating timer the idle watch and heap sampler run on. */
export interface WatchdogClock extends Clock {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The real clock: the deadline's, with the repeating timer. */
const systemWatchdogClock: WatchdogClock = {
  ...systemClock,
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/** Time limits of one run, in ms. */
export interface RunLimits {
  timeoutMs: number;
  idleTimeoutMs: number;
  /** When to ask for the grace turn; default graceOffsetMs(timeoutMs). `null` disables it. */
  graceAtMs?: number | null;
  /** Kill a thread whose heap passes this fraction of its limit (where sampling exists). */
  heapKillFraction?: number;
  heapSampleMs?: number;
}

/** What the watchdog watches once the worker is started. */
export interface WatchedWorker {
  /** Asks the worker for its final report (the grace turn). */
  grace(): void;
  /** Capability calls the worker is waiting on: a run waiting on a child or a command is not idle. */
  pending(): number;
  /** The worker's heap, where the platform can sample it from outside. */
  heap(): { used: number; limit: number } | undefined;
}

/** The clocks of one run. */
export class RunWatchdog {
  private readonly deadline: Deadline;
  private readonly clock: WatchdogClock;
  private lastActivity: number;
  // The idle watchdog starts with the worker's first call: a thread still starting is not idle.
  private workerStarted = false;
  private paused = 0;
  private timers: { ceiling: unknown; watch: unknown } | undefined;
  private worker: WatchedWorker | undefined;
  /** Resumes the deadline paused at its start for pauses taken before it (see `start`). */
  private resumeEarly: (() => void) | undefined;

  constructor(
    private readonly limits: RunLimits,
    private readonly onKill: (reason: KillReason) => void,
    clock: WatchdogClock = systemWatchdogClock,
  ) {
    this.clock = clock;
    this.lastActivity = clock.now();
    const graceAt =
      limits.graceAtMs === null ? undefined : (limits.graceAtMs ?? graceOffsetMs(limits.timeoutMs));
    this.deadline = new Deadline(
      limits.timeoutMs,
      graceAt,
      () => this.worker?.grace(),
      () => onKill({ kind: 'timeout' }),
      clock,
    );
  }

  /** Starts every clock on a launched worker. */
  start(worker: WatchedWorker): void {
    this.worker = worker;
    this.deadline.start();
    // A pause taken before the start (a handler that asked at once) holds the deadline from its start.
    if (this.paused > 0) this.resumeEarly = this.deadline.pause();
    // Approval waits stop the clock, but the worker keeps running meanwhile (a parallel tool call
    // may be spinning), so an absolute ceiling still holds: twice the timeout, at least 10 minutes more.
    const ceilingMs = this.limits.timeoutMs + Math.max(this.limits.timeoutMs, 600_000);
    const sampleMs = Math.max(10, Math.min(this.limits.heapSampleMs ?? 25, this.limits.idleTimeoutMs / 4));
    this.timers = {
      ceiling: this.clock.setTimeout(() => this.onKill({ kind: 'timeout' }), ceilingMs),
      watch: this.clock.setInterval(() => this.sample(worker), sampleMs),
    };
  }

  /** The worker did something (a call, an event, model stream bytes): it is not idle. */
  touch(): void {
    this.workerStarted = true;
    this.lastActivity = this.clock.now();
  }

  /** Stops the deadline and the idle watch until the returned function is called (pauses nest). */
  pauseClock(): () => void {
    this.paused++;
    const resume = this.worker === undefined ? undefined : this.deadline.pause();
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.paused--;
      this.touch();
      resume?.();
      if (this.paused === 0) {
        this.resumeEarly?.();
        this.resumeEarly = undefined;
      }
    };
  }

  /** Stops every clock. */
  stop(): void {
    this.deadline.stop();
    if (this.timers === undefined) return;
    this.clock.clearTimeout(this.timers.ceiling);
    this.clock.clearInterval(this.timers.watch);
    this.timers = undefined;
  }

  private sample(worker: WatchedWorker): void {
    const idleFor = this.clock.now() - this.lastActivity;
    if (
      this.workerStarted &&
      this.paused === 0 &&
      worker.pending() === 0 &&
      idleFor > this.limits.idleTimeoutMs
    )
      this.onKill({ kind: 'idle' });
    const heap = worker.heap();
    if (heap && heap.used > heap.limit * (this.limits.heapKillFraction ?? 0.9))
      this.onKill({ kind: 'oom', usedMb: Math.round(heap.used / 1048576) });
  }
}
