// A wall-clock deadline that can be paused: time a person spends answering an approval prompt
// does not count against a run's timeout. Fires `onGrace` once before the end and `onExpire` at it.

/** Timer hooks, injectable for tests. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** When the grace turn is requested: at 80% of the timeout, but never more than 60 s before it. */
export function graceOffsetMs(timeoutMs: number): number {
  return Math.max(0.8 * timeoutMs, timeoutMs - 60_000);
}

/** A pausable deadline. */
export class Deadline {
  private spentMs = 0;
  private startedAt: number | undefined;
  private pauses = 0;
  private timers: unknown[] = [];
  private graceFired = false;
  private done = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly graceAtMs: number | undefined,
    private readonly onGrace: () => void,
    private readonly onExpire: () => void,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Starts counting. */
  start(): void {
    this.startedAt = this.clock.now();
    this.arm();
  }

  /** Time counted so far (excluding pauses). */
  elapsedMs(): number {
    return this.spentMs + (this.startedAt === undefined ? 0 : this.clock.now() - this.startedAt);
  }

  /** Stops the clock until the returned function is called (pauses nest). */
  pause(): () => void {
    if (this.done) return () => undefined;
    if (this.pauses++ === 0 && this.startedAt !== undefined) {
      this.spentMs += this.clock.now() - this.startedAt;
      this.startedAt = undefined;
      this.disarm();
    }
    let resumed = false;
    return () => {
      if (resumed || this.done) return;
      resumed = true;
      if (--this.pauses === 0) {
        this.startedAt = this.clock.now();
        this.arm();
      }
    };
  }

  /** Cancels every timer. */
  stop(): void {
    this.done = true;
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    const left = this.timeoutMs - this.elapsedMs();
    if (!this.graceFired && this.graceAtMs !== undefined) {
      const toGrace = this.graceAtMs - this.elapsedMs();
      this.timers.push(
        this.clock.setTimeout(
          () => {
            this.graceFired = true;
            this.onGrace();
          },
          Math.max(0, toGrace),
        ),
      );
    }
    this.timers.push(
      this.clock.setTimeout(
        () => {
          this.done = true;
          this.onExpire();
        },
        Math.max(0, left),
      ),
    );
  }

  private disarm(): void {
    for (const t of this.timers) this.clock.clearTimeout(t);
    this.timers = [];
  }
}
