// What the host takes from a run's capability port after the run ended is bounded: a worker that
// floods its port cannot hold the host's event loop in that loop.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { TAKE_PENDING_LIMIT, takeQueued } from '../../../src/host/pool/executor.js';

describe('takeQueued', () => {
  it('takes everything queued, in order, when there is little', () => {
    const { port1, port2 } = new MessageChannel();
    for (let i = 0; i < 5; i++) port2.postMessage({ i });
    expect(takeQueued(port1)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
    expect(takeQueued(port1)).toEqual([]);
    port1.close();
  });

  it('stops at its message cap when the port holds more, and leaves the rest', () => {
    const { port1, port2 } = new MessageChannel();
    const queued = TAKE_PENDING_LIMIT.messages * 3;
    for (let i = 0; i < queued; i++) port2.postMessage(i);
    const started = performance.now();
    const taken = takeQueued(port1);
    const ms = performance.now() - started;
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.length).toBeLessThanOrEqual(TAKE_PENDING_LIMIT.messages);
    expect(taken.slice(0, 3)).toEqual([0, 1, 2]);
    // Bounded by the cap or the time limit, whichever comes first (loose: shared machines).
    expect(ms).toBeLessThan(1000);
    port1.close();
  });
});
