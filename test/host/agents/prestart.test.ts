// Threads started ahead for subagents, through the runtime and the real SDK: while a lead that holds
// Task waits for its model, the pool starts and parks threads for its children (`prestartThreads`
// ahead of the Task blocks its reply has begun), and the children run on them; with
// `prestartThreads: 0`, none are.
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/host/runtime.js';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A lead whose first reply, held until `parked` threads are parked (or 300 ms when none should
 * be), starts `tasks` subagents.
 */
async function fanOut(config: Record<string, number>, parked: number, tasks = 4) {
  const stats = () => harness?.runtime.stats();
  let atReply: ReturnType<Runtime['stats']> | undefined;
  harness = await startHarness(
    {
      lead: async ({ turn }) => {
        if (turn > 0) return textReply('lead done');
        // The model "thinks" until the threads wanted are loaded.
        if (parked > 0) await until(() => stats()?.parked === parked);
        // A while longer: nothing more is started.
        await new Promise((resolve) => setTimeout(resolve, 300));
        atReply = stats();
        return toolUseReply(
          Array.from({ length: tasks }, (_, i) => ({
            name: 'Task',
            input: { description: `part ${i}`, prompt: `part ${i}`, subagent_type: 'sub' },
          })),
        );
      },
      sub: () => textReply('sub done'),
    },
    { lead: { tools: ['Task'] }, sub: { tools: ['Read'] } },
    { files: { '.cadre/config.json': JSON.stringify(config) } },
  );
  const out = await harness.runtime.run({ subagent_type: 'lead', prompt: 'go' });
  return { out, atReply, after: harness.runtime.stats() };
}

describe('threads started ahead for subagents', () => {
  it('are started and parked while the lead waits for its model, and its subagents run on them', async () => {
    const { out, atReply, after } = await fanOut({ prestartThreads: 4 }, 4);
    expect(out.status).toBe('completed');
    expect(out.toolCalls).toBe(4);
    // The lead's thread and four parked ones when the reply came.
    expect(atReply).toMatchObject({ threads: 5, parked: 4 });
    // The four subagents took them: no thread was started after the reply.
    expect(after).toMatchObject({ threads: 5, parked: 0, runs: 0 });
  });

  it('are not started with prestartThreads: 0', async () => {
    const { out, atReply, after } = await fanOut({ prestartThreads: 0 }, 0);
    expect(out.status).toBe('completed');
    expect(atReply).toMatchObject({ threads: 1, parked: 0 });
    expect(after).toMatchObject({ threads: 5, parked: 0 });
  });

  it("are started as the reply's Task blocks begin, before the reply ends", async () => {
    const EVENT_MS = 300;
    const timeline: { at: number; threads: number }[] = [];
    harness = await startHarness(
      {
        lead: ({ turn }) =>
          turn > 0
            ? textReply('lead done')
            : toolUseReply(
                Array.from({ length: 4 }, (_, i) => ({
                  name: 'Task',
                  input: { description: `part ${i}`, prompt: `part ${i}`, subagent_type: 'sub' },
                })),
                // A model writing its reply: one SSE event every EVENT_MS, six events a Task block.
                { eventDelayMs: EVENT_MS },
              ),
        sub: () => textReply('sub done'),
      },
      { lead: { tools: ['Task'] }, sub: { tools: ['Read'] } },
      { files: { '.cadre/config.json': JSON.stringify({ prestartThreads: 1 }) } },
    );
    const runtime = harness.runtime;
    const poll = setInterval(
      () => timeline.push({ at: performance.now(), threads: runtime.stats().threads }),
      5,
    );
    const out = await runtime.run({ subagent_type: 'lead', prompt: 'go' }).finally(() => clearInterval(poll));
    expect(out.status).toBe('completed');
    const reply = harness.server.requests.find((r) => r.index === 0);
    const replyEnded = reply?.endedAt ?? NaN;
    // The lead's thread and one for each of the four children were there while the reply was
    // still being written, from the third Task block on (one thread ahead of the blocks begun): that
    // block begins 14 events before the reply ends, the fourth (where sizing by the blocks alone
    // gets there) 8. The bound in between leaves 3 events (900 ms) for the worker's stream to reach
    // the host on a loaded machine.
    const fiveAt = timeline.find((t) => t.threads >= 5)?.at ?? Infinity;
    expect(fiveAt).toBeLessThan(replyEnded - 11 * EVENT_MS);
    // One thread ahead of the last block at most: never more than the lead, four children and one.
    expect(Math.max(...timeline.map((t) => t.threads))).toBeLessThanOrEqual(6);
  });

  it('are never more than the subagents the tree may still start, nor the free slots', async () => {
    const capped = await fanOut({ prestartThreads: 8, maxSubagents: 2 }, 2, 2);
    expect(capped.out.status).toBe('completed');
    expect(capped.atReply).toMatchObject({ threads: 3, parked: 2 });
    await harness?.close();
    // Three slots: the lead's own and two free.
    const slots = await fanOut({ prestartThreads: 8, concurrency: 3 }, 3, 3);
    expect(slots.out.status).toBe('completed');
    expect(slots.atReply).toMatchObject({ threads: 4, parked: 3 });
  });
});
