import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/host/pool/scheduler.js';
import { Deadline, graceOffsetMs, type Clock } from '../../../src/host/pool/deadline.js';

describe('Scheduler', () => {
  it('admits up to the cap and queues the rest, serving deeper runs first', async () => {
    const s = new Scheduler(2, 10);
    await s.acquire(0);
    await s.acquire(0);
    const order: string[] = [];
    const shallow = s.acquire(0).then(() => order.push('shallow'));
    const deep = s.acquire(2).then(() => order.push('deep'));
    expect(s.running).toBe(2);
    expect(s.queued).toBe(2);
    s.release();
    await deep;
    s.release();
    await shallow;
    expect(order).toEqual(['deep', 'shallow']);
  });

  it('refuses past the queue bound with "limit reached — do not retry"', async () => {
    const s = new Scheduler(1, 1);
    await s.acquire(0);
    const queued = s.acquire(0);
    await expect(s.acquire(0)).rejects.toMatchObject({
      code: 'limit_reached',
      message: expect.stringMatching(/limit reached — do not retry/),
    });
    s.release();
    await queued;
  });

  it('lets a returning parent bypass the queue bound', async () => {
    const s = new Scheduler(1, 0);
    await s.acquire(0);
    const back = s.acquire(1000, undefined, true);
    s.release();
    await expect(back).resolves.toBeUndefined();
  });

  it('drops an aborted waiter from the queue', async () => {
    const s = new Scheduler(1, 5);
    await s.acquire(0);
    const controller = new AbortController();
    const waiting = s.acquire(0, controller.signal);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(s.queued).toBe(0);
  });
});

function fakeClock() {
  let now = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let id = 0;
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(++id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (h) => void timers.delete(h as number),
  };
  const advance = (ms: number) => {
    const target = now + ms;
    for (;;) {
      const next = [...timers.entries()]
        .filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!next) break;
      timers.delete(next[0]);
      now = next[1].at;
      next[1].fn();
    }
    now = target;
  };
  return { clock, advance };
}

describe('Deadline', () => {
  it('asks for the grace turn at 80% of the timeout, at most 60 s before it', () => {
    expect(graceOffsetMs(10_000)).toBe(8_000);
    expect(graceOffsetMs(600_000)).toBe(540_000);
  });

  it('fires grace then expiry, and does not count paused time', () => {
    const { clock, advance } = fakeClock();
    const events: string[] = [];
    const d = new Deadline(
      1000,
      800,
      () => events.push('grace'),
      () => events.push('expire'),
      clock,
    );
    d.start();
    advance(500);
    const resume = d.pause();
    advance(10_000);
    expect(events).toEqual([]);
    resume();
    advance(299);
    expect(events).toEqual([]);
    advance(1);
    expect(events).toEqual(['grace']);
    advance(200);
    expect(events).toEqual(['grace', 'expire']);
    expect(d.elapsedMs()).toBe(1000);
  });
});
