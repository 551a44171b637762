import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../../src/shared/task.js';
import { RunTally } from '../../../src/host/pool/run-tally.js';

const stamp = { agentId: 'explore-1234abcd', depth: 1, parentId: 'lead-00000000' };
const delta = (text: string) => ({ type: 'text-delta', text, at: 1 });
const turnEnd = (turn: number) => ({
  type: 'turn-end',
  turn,
  stopReason: 'end_turn',
  at: 1,
  agentId: 'x',
  depth: 0,
});

describe('RunTally', () => {
  it('counts tool calls, turns and the latest usage', () => {
    const tally = new RunTally(stamp, 1000);
    const usage = { ...emptyUsage(), input_tokens: 12, output_tokens: 4 };
    const taken = tally.take([
      { type: 'tool-call', toolUseId: 't1', name: 'Read', input: {}, at: 1 },
      { type: 'tool-call', toolUseId: 't2', name: 'Grep', input: {}, at: 1 },
      { type: 'usage', usage, at: 1 },
      turnEnd(3),
    ]);
    expect(taken.map((e) => e.type)).toEqual(['tool-call', 'tool-call', 'usage', 'turn-end']);
    expect(tally.toolCalls).toBe(2);
    expect(tally.turns).toBe(3);
    expect(tally.usage).toEqual(usage);
  });

  it("stamps every event with the host's identity of the run, whatever the worker claims", () => {
    const tally = new RunTally({ agentId: 'a-1', depth: 0 }, 1000);
    const [event] = tally.take([turnEnd(1)]);
    expect(event).toMatchObject({ agentId: 'a-1', depth: 0 });
    expect(event).not.toHaveProperty('parentId');
    const [child] = new RunTally(stamp, 1000).take([{ ...delta('hi'), agentId: 'other', depth: 9 }]);
    expect(child).toMatchObject(stamp);
  });

  it("drops what is not a worker's event: host-only types, invalid items, a non-list", () => {
    const tally = new RunTally(stamp, 1000);
    expect(tally.take({ type: 'text-delta', text: 'x', at: 1 })).toEqual([]);
    expect(tally.take('nonsense')).toEqual([]);
    const taken = tally.take([
      { type: 'agent-end', output: {}, at: 1 },
      { type: 'approval-request', at: 1 },
      { type: 'tool-call' },
      null,
      42,
      delta('kept'),
    ]);
    expect(taken.map((e) => e.type)).toEqual(['text-delta']);
    expect(tally.toolCalls).toBe(0);
  });

  it('keeps the text of the last turn that had any as the partial result', () => {
    const tally = new RunTally(stamp, 1000);
    tally.take([delta('first '), delta('answer'), turnEnd(1)]);
    expect(tally.partialText()).toBe('first answer');
    // A turn of only whitespace does not replace the last turn's text.
    tally.take([delta('  \n'), turnEnd(2)]);
    expect(tally.partialText()).toBe('first answer');
    // The current turn's text counts as soon as it has any.
    tally.take([delta('second')]);
    expect(tally.partialText()).toBe('second');
  });

  it('holds the partial text to the reply cap', () => {
    const tally = new RunTally(stamp, 10);
    tally.take([delta('12345678'), delta('abcdef'), delta('more')]);
    expect(tally.partialText()).toBe('12345678ab');
  });
});
