// Every run's end is recorded once: one agent-end event (transcript and listeners), one status
// line closing its transcript, and its usage counted once in its tree — whether it completed,
// ran as a child, or was cancelled while it waited for a slot.
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events.js';
import { totalTokens, type TaskOutput } from '../../../src/shared/task.js';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The `type` of every line of a transcript. */
async function lineTypes(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

/** Asserts the transcript closes with exactly one agent-end then exactly one status line. */
async function expectOneEnd(output: TaskOutput): Promise<void> {
  const types = await lineTypes(output.transcriptPath);
  expect(types.filter((t) => t === 'agent-end')).toHaveLength(1);
  expect(types.filter((t) => t === 'status')).toHaveLength(1);
  expect(types.slice(-2)).toEqual(['agent-end', 'status']);
}

describe('the end-of-run record', () => {
  it('is written once for a lead and its child, and their usage is counted once in the tree', async () => {
    h = await startHarness(
      {
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply(
                [{ name: 'Task', input: { description: 'd', prompt: 'look', subagent_type: 'worker' } }],
                {
                  usage: { input_tokens: 100, output_tokens: 10 },
                },
              )
            : textReply('lead done', { usage: { input_tokens: 200, output_tokens: 20 } }),
        worker: () => textReply('worker done', { usage: { input_tokens: 40, output_tokens: 4 } }),
      },
      { lead: { tools: ['Task'], maxDepth: 1 }, worker: { tools: ['Read'] } },
    );
    const events: AgentEvent[] = [];
    const handle = await h.runtime.task(
      { subagent_type: 'lead', prompt: 'go', description: 'lead' },
      { onEvent: (e) => events.push(e), events: false },
    );
    const lead = await handle.result;
    expect(lead.status).toBe('completed');
    const ends = events.filter(
      (e): e is Extract<AgentEvent, { type: 'agent-end' }> => e.type === 'agent-end',
    );
    expect(ends.map((e) => e.output.agentType).sort()).toEqual(['lead', 'worker']);
    const child = ends.find((e) => e.output.agentType === 'worker')!.output;
    expect(child.status).toBe('completed');
    await expectOneEnd(lead);
    await expectOneEnd(child);
    // Usage is cumulative per run: the lead's two turns and the child's one, each counted once.
    expect(totalTokens(lead.usage)).toBe(330);
    expect(totalTokens(child.usage)).toBe(44);
    expect(totalTokens(handle.usage())).toBe(374);
  });

  it('is written once for a run cancelled while it waited for a slot', async () => {
    h = await startHarness(
      { worker: () => textReply('slow', { latencyMs: 1_500 }) },
      { worker: { tools: ['Read'] } },
      { concurrency: 1 },
    );
    const first = await h.runtime.task(
      { subagent_type: 'worker', prompt: 'one', description: 'one' },
      { events: false },
    );
    const second = await h.runtime.task(
      { subagent_type: 'worker', prompt: 'two', description: 'two' },
      { events: false },
    );
    expect(h.runtime.stats().queued).toBe(1);
    second.stop();
    const cancelled = await second.result;
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      turns: 0,
      error: { code: 'cancelled', reason: 'user_cancelled' },
    });
    await expectOneEnd(cancelled);
    first.stop();
    const stopped = await first.result;
    expect(stopped.status).toBe('cancelled');
    // Cancelled while queued or while running, the error reads the same.
    expect(stopped.error).toEqual(cancelled.error);
    await expectOneEnd(stopped);
  });
});
