// A clock that moves only when a test says so: timeouts and intervals fire in time order as
// `advance` passes them, so time-driven code is tested without sleeping.
import type { WatchdogClock } from '../../src/host/pool/run-watchdog.js';

interface Timer {
  at: number;
  fn: () => void;
  every?: number;
}

/** A manual clock and the function that moves it forward. */
export function fakeClock(): { clock: WatchdogClock; advance: (ms: number) => void; pending: () => number } {
  let now = 0;
  let id = 0;
  const timers = new Map<number, Timer>();
  const add = (fn: () => void, ms: number, every?: number) => {
    timers.set(++id, { at: now + Math.max(0, ms), fn, ...(every !== undefined ? { every } : {}) });
    return id;
  };
  const clock: WatchdogClock = {
    now: () => now,
    setTimeout: (fn, ms) => add(fn, ms),
    clearTimeout: (handle) => void timers.delete(handle as number),
    setInterval: (fn, ms) => add(fn, ms, Math.max(1, ms)),
    clearInterval: (handle) => void timers.delete(handle as number),
  };
  const advance = (ms: number) => {
    const target = now + ms;
    for (;;) {
      const next = [...timers.entries()]
        .filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      const [handle, timer] = next;
      now = timer.at;
      if (timer.every === undefined) timers.delete(handle);
      else timer.at += timer.every;
      timer.fn();
    }
    now = target;
  };
  return { clock, advance, pending: () => timers.size };
}
