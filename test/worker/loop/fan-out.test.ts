import { describe, expect, it } from 'vitest';
import { capFanOut } from '../../../src/worker/loop/fan-out.js';
import type { PendingCall } from '../../../src/worker/loop/tool-call.js';

const calls = (names: string[]): PendingCall[] => names.map((name, i) => ({ id: `t${i}`, name, input: {} }));
const refused = (list: PendingCall[]) =>
  list.map((c, i) => (c.refusal === undefined ? -1 : i)).filter((i) => i >= 0);

describe('capFanOut', () => {
  it('runs the first N calls of a message and refuses the rest, saying the limit and not to retry', () => {
    const list = calls(Array.from({ length: 10 }, () => 'Read'));
    capFanOut(list, { maxToolCallsPerMessage: 4, maxTasksPerMessage: 2 }, new Set(['Task']));
    expect(refused(list)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(list[4]?.refusal).toMatch(
      /^limit_reached: at most 4 tool calls run per message \(maxToolCallsPerMessage\) and this message made 10; .*Do not retry/,
    );
  });

  it('caps subagent launches (Task and agent tools) apart from other calls', () => {
    const list = calls(['Task', 'Read', 'code_reviewer', 'Task', 'Read', 'Task']);
    capFanOut(
      list,
      { maxToolCallsPerMessage: 64, maxTasksPerMessage: 2 },
      new Set(['Task', 'code_reviewer']),
    );
    expect(refused(list)).toEqual([3, 5]);
    expect(list[3]?.refusal).toMatch(
      /at most 2 subagents start per message \(maxTasksPerMessage\) and this message asked for 4/,
    );
  });

  it('does not count calls already refused for another reason', () => {
    const list = calls(['Nope', 'Read', 'Read']);
    (list[0] as PendingCall).refusal = 'not_granted';
    capFanOut(list, { maxToolCallsPerMessage: 2, maxTasksPerMessage: 1 }, new Set());
    expect(list.map((c) => c.refusal)).toEqual(['not_granted', undefined, undefined]);
  });
});
