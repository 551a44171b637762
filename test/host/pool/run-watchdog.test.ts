import { describe, expect, it } from 'vitest';
import type { KillReason } from '../../../src/host/pool/run-end.js';
import { RunWatchdog, type RunLimits, type WatchedWorker } from '../../../src/host/pool/run-watchdog.js';
import { fakeClock } from '../../support/fake-clock.js';

/** A watchdog on a fake clock, with what it did to its worker written down. */
function watch(limits: RunLimits, worker: Partial<WatchedWorker> = {}) {
  const { clock, advance, pending } = fakeClock();
  const kills: KillReason[] = [];
  const graces: number[] = [];
  const dog = new RunWatchdog(limits, (reason) => kills.push(reason), clock);
  dog.start({
    grace: () => graces.push(clock.now()),
    pending: worker.pending ?? (() => 0),
    heap: worker.heap ?? (() => undefined),
  });
  return { dog, clock, advance, kills, graces, timers: pending };
}

describe('RunWatchdog', () => {
  it('asks for the grace turn, then kills at the timeout', () => {
    const w = watch({ timeoutMs: 1000, idleTimeoutMs: 60_000, graceAtMs: 800 });
    w.advance(799);
    expect(w.graces).toEqual([]);
    w.advance(1);
    expect(w.graces).toEqual([800]);
    w.advance(199);
    expect(w.kills).toEqual([]);
    w.advance(1);
    expect(w.kills[0]).toEqual({ kind: 'timeout' });
  });

  it('places the grace turn at 80% of the timeout by default, and none when disabled', () => {
    const byDefault = watch({ timeoutMs: 10_000, idleTimeoutMs: 60_000 });
    byDefault.advance(10_000);
    expect(byDefault.graces).toEqual([8_000]);
    const none = watch({ timeoutMs: 10_000, idleTimeoutMs: 60_000, graceAtMs: null });
    none.advance(10_000);
    expect(none.graces).toEqual([]);
    expect(none.kills[0]).toEqual({ kind: 'timeout' });
  });

  it('does not count time an approval waits, for the deadline or the idle watch', () => {
    const w = watch({ timeoutMs: 1000, idleTimeoutMs: 200, graceAtMs: 800 });
    w.dog.touch();
    w.advance(100);
    const resume = w.dog.pauseClock();
    w.advance(50_000);
    expect(w.kills).toEqual([]);
    expect(w.graces).toEqual([]);
    resume();
    w.advance(199);
    expect(w.kills).toEqual([]);
    // The resume counts as activity: idle from 200 ms after it (at the next 25 ms sample), well
    // before the 900 ms the deadline had left.
    w.advance(30);
    expect(w.kills[0]).toEqual({ kind: 'idle' });
  });

  it('resumes the clock where it stopped: the deadline fires after the time left', () => {
    const w = watch({ timeoutMs: 1000, idleTimeoutMs: 60_000, graceAtMs: 800 });
    w.advance(500);
    const resume = w.dog.pauseClock();
    w.advance(10_000);
    resume();
    w.advance(299);
    expect(w.graces).toEqual([]);
    w.advance(1);
    expect(w.graces).toEqual([10_800]);
    w.advance(200);
    expect(w.kills[0]).toEqual({ kind: 'timeout' });
  });

  it('nests pauses, and a resume called twice counts once', () => {
    const w = watch({ timeoutMs: 1000, idleTimeoutMs: 100, graceAtMs: null });
    w.dog.touch();
    const first = w.dog.pauseClock();
    const second = w.dog.pauseClock();
    first();
    first();
    w.advance(5_000);
    expect(w.kills).toEqual([]);
    second();
    w.advance(150);
    expect(w.kills[0]).toEqual({ kind: 'idle' });
  });

  it('holds an absolute ceiling no pause stretches: twice the timeout, at least 10 minutes more', () => {
    const short = watch({ timeoutMs: 1000, idleTimeoutMs: 60_000 });
    short.dog.pauseClock();
    short.advance(601_000 - 1);
    expect(short.kills).toEqual([]);
    short.advance(1);
    expect(short.kills[0]).toEqual({ kind: 'timeout' });

    const long = watch({ timeoutMs: 3_600_000, idleTimeoutMs: 60_000_000 });
    long.dog.pauseClock();
    long.advance(7_200_000 - 1);
    expect(long.kills).toEqual([]);
    long.advance(1);
    expect(long.kills[0]).toEqual({ kind: 'timeout' });
  });

  it('does not call a worker idle before its first call, nor while it waits on a capability', () => {
    let pending = 0;
    const w = watch({ timeoutMs: 60_000, idleTimeoutMs: 100 }, { pending: () => pending });
    w.advance(5_000);
    expect(w.kills).toEqual([]);
    w.dog.touch();
    pending = 1;
    w.advance(5_000);
    expect(w.kills).toEqual([]);
    pending = 0;
    w.dog.touch();
    w.advance(100);
    expect(w.kills).toEqual([]);
    w.advance(30);
    expect(w.kills[0]).toEqual({ kind: 'idle' });
  });

  it('kills a worker whose heap passes the fraction of its limit, naming the MB', () => {
    let used = 100 * 1048576;
    const limit = 200 * 1048576;
    const w = watch(
      { timeoutMs: 60_000, idleTimeoutMs: 60_000, heapKillFraction: 0.9, heapSampleMs: 50 },
      { heap: () => ({ used, limit }) },
    );
    w.advance(1_000);
    expect(w.kills).toEqual([]);
    used = 181 * 1048576;
    w.advance(49);
    expect(w.kills).toEqual([]);
    w.advance(1);
    expect(w.kills[0]).toEqual({ kind: 'oom', usedMb: 181 });
  });

  it('leaves no timer behind once stopped, and kills nothing after', () => {
    const w = watch({ timeoutMs: 1000, idleTimeoutMs: 100 });
    w.dog.touch();
    w.dog.stop();
    expect(w.timers()).toBe(0);
    w.advance(10_000);
    expect(w.kills).toEqual([]);
    expect(w.graces).toEqual([]);
  });

  it('can pause before it starts (a handler built ahead of the worker)', () => {
    const { clock, advance } = fakeClock();
    const kills: KillReason[] = [];
    const dog = new RunWatchdog({ timeoutMs: 1000, idleTimeoutMs: 60_000 }, (r) => kills.push(r), clock);
    const resume = dog.pauseClock();
    dog.start({ grace: () => undefined, pending: () => 0, heap: () => undefined });
    advance(5_000);
    expect(kills).toEqual([]);
    resume();
    advance(1000);
    expect(kills[0]).toEqual({ kind: 'timeout' });
  });
});
