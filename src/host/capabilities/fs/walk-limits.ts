// How a walk on a shared I/O thread is bounded and stopped. The walk is synchronous (a message
// posted to its thread would wait until it ends), so the event loop and the walk share a flag in
// shared memory: the event loop sets it when the run that asked for the walk ends, and the walk
// reads it as it goes. A walk also stops by itself after a time budget and after a bounded amount of
// work, counting the .gitignore rules a model may write, so no one walk holds a thread that other
// runs share for long.
import { CadreError } from '../../../shared/errors.js';
import type { RuleTests } from '../gitignore.js';

/** A walk stops by itself after this long, with what it found so far (`truncated`, and a notice). */
export const WALK_TIME_BUDGET_MS = 10_000;
/**
 * Ignore rule tests counted as one entry. Measured: an entry costs about 3 µs, a test of a typical
 * rule (`*.log`, `dist/`) 0.15 µs, of the slowest rules a model can write 0.6 µs; so a plain
 * .gitignore barely counts, and a hostile one stops the walk within a few seconds.
 */
const RULE_TESTS_PER_ENTRY = 8;
/** Work between two looks at the stop flag and the clock. */
const CHECK_EVERY = 256;
/** Notices one walk gives at most (one per capped .gitignore, say); the rest are counted. */
const MAX_NOTICES = 5;

/** The event loop's side of a walk's stop flag. */
export interface CancelSwitch {
  /** The flag (shared memory): pass it to the walk as `GlobWalkOptions.cancel`. */
  flag: Int32Array;
  /** Sets the flag: the walk is no longer wanted (its caller gave up for another reason). */
  set(): void;
  /** Stops listening to the signal (the walk is over). */
  dispose(): void;
}

/**
 * A stop flag that is set as soon as `signal` aborts (at once when it already has): the walk it is
 * given to stops at its next look.
 */
export function cancelSwitch(signal: AbortSignal | undefined): CancelSwitch {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const set = () => Atomics.store(flag, 0, 1);
  if (signal?.aborted) set();
  signal?.addEventListener('abort', set, { once: true });
  return { flag, set, dispose: () => signal?.removeEventListener('abort', set) };
}

/**
 * One walk's limits and what it has spent, on the I/O thread. Work is counted in entries: each
 * entry looked at and each ignore rule parsed counts one, every `RULE_TESTS_PER_ENTRY` rule tests
 * one more (`rules` collects them).
 */
export class WalkLimits {
  /** Entries looked at and ignore rules parsed. */
  scanned = 0;
  /** Ignore rule tests, for `isIgnored` to count into. */
  readonly rules: RuleTests = { tests: 0 };
  /** What cut the walk short, if anything did. */
  stopped: 'work' | 'time' | undefined;
  private nextLook = 0;
  private readonly deadline: number;
  private readonly said: string[] = [];
  private unsaid = 0;

  constructor(
    private readonly scanLimit: number,
    private readonly cancel: Int32Array | undefined,
    private readonly budgetMs: number,
  ) {
    this.deadline = performance.now() + budgetMs;
  }

  /**
   * False once the walk must stop (its work or its time is spent); throws `cancelled` once the flag
   * is set. The work cap is checked at every call, the flag and the clock every CHECK_EVERY of work.
   */
  canGoOn(): boolean {
    const work = this.scanned + this.rules.tests / RULE_TESTS_PER_ENTRY;
    if (work > this.scanLimit) {
      this.stopped = 'work';
      return false;
    }
    if (work < this.nextLook) return true;
    this.nextLook = work + CHECK_EVERY;
    if (this.cancel !== undefined && Atomics.load(this.cancel, 0) !== 0)
      throw new CadreError('cancelled', 'the search was cancelled: its run has ended');
    if (performance.now() > this.deadline) {
      this.stopped = 'time';
      return false;
    }
    return true;
  }

  /** Something the caller should be told (a capped .gitignore). */
  notice(text: string): void {
    if (this.said.length < MAX_NOTICES) this.said.push(text);
    else this.unsaid++;
  }

  /** Everything to be told, the time budget included when it stopped the walk. */
  notices(): string[] {
    const all = [...this.said];
    if (this.unsaid > 0) all.push(`${this.unsaid} more notices like these`);
    if (this.stopped === 'time')
      all.push(
        `the walk stopped after ${this.budgetMs / 1000} s with what it had found; narrow the path or pattern`,
      );
    return all;
  }
}
