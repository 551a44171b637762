// The live tree without Ink: the reducer over real event shapes, and the lines it draws.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events.js';
import { emptyUsage, type TaskOutput } from '../../../src/shared/task.js';
import { reduceRows, rowState, waitingForPerson, type AgentRows } from '../../../src/host/ui/agent-rows.js';
import { treeLines } from '../../../src/host/ui/tree-lines.js';

function start(
  agentId: string,
  parentId: string | undefined,
  at: number,
  extra: Partial<AgentEvent> = {},
): AgentEvent {
  return {
    type: 'agent-start',
    agentId,
    ...(parentId ? { parentId } : {}),
    depth: parentId ? agentId.split('.').length - 1 : 0,
    at,
    agentType: agentId.split('-')[0] ?? agentId,
    model: 'm',
    description: `does ${agentId}`,
    prompt: 'p',
    ...extra,
  } as AgentEvent;
}

function end(agentId: string, at: number, status: TaskOutput['status'] = 'completed'): AgentEvent {
  return {
    type: 'agent-end',
    agentId,
    depth: 0,
    at,
    output: {
      agentId,
      agentType: 'x',
      status,
      result: `${agentId} result`,
      usage: { ...emptyUsage(), input_tokens: 1200, output_tokens: 300 },
      model: 'm',
      durationMs: 1,
      turns: 1,
      toolCalls: 0,
      transcriptPath: '/t',
    },
  };
}

const fold = (events: AgentEvent[]): AgentRows => events.reduce(reduceRows, {} as AgentRows);

describe('agent rows', () => {
  it('nests children under parents with tree lines, and shows each state', () => {
    const rows = fold([
      start('lead-1', undefined, 0),
      start('worker-1', 'lead-1', 10),
      start('worker-2', 'lead-1', 20),
      start('sub-1', 'worker-2', 30),
      {
        type: 'tool-call',
        agentId: 'worker-1',
        depth: 1,
        at: 40,
        toolUseId: 't1',
        name: 'Bash',
        input: { command: 'npm test -- --reporter dot' },
      },
      {
        type: 'approval-request',
        agentId: 'worker-1',
        depth: 1,
        at: 41,
        requestId: 'r1',
        capability: 'exec.run',
        summary: 'run: npm test',
      },
      {
        type: 'tool-call',
        agentId: 'sub-1',
        depth: 2,
        at: 42,
        toolUseId: 't2',
        name: 'Grep',
        input: { pattern: 'retry' },
      },
      { type: 'usage', agentId: 'sub-1', depth: 2, at: 43, usage: { ...emptyUsage(), input_tokens: 15_000 } },
    ]);
    expect(rowState(rows['lead-1']!, rows)).toBe('waiting');
    expect(rowState(rows['worker-1']!, rows)).toBe('approval');
    expect(rowState(rows['worker-2']!, rows)).toBe('waiting');
    expect(rowState(rows['sub-1']!, rows)).toBe('working');
    expect(waitingForPerson(rows)).toBe(1);
    const lines = treeLines(rows, { now: 65_000, width: 100, maxRows: 10 }).map((l) => l.text);
    expect(lines[0]).toMatch(
      /^\u25cc lead-1 \u00b7 does lead-1 .*waiting on subagents \u00b7 0 tok \u00b7 1m05s$/,
    );
    expect(lines[1]).toMatch(/^\u251c\u2500 \? worker-1 .*needs approval/);
    expect(lines[2]).toMatch(/^\u2514\u2500 \u25cc worker-2/);
    expect(lines[3]).toMatch(/^ {3}\u2514\u2500 \u25cf sub-1 \u00b7 does sub-1 .*Grep retry \u00b7 15k tok/);
    expect(lines[4]).toBe('1 agent waiting for you');
    expect(lines.every((l) => l.length <= 100)).toBe(true);
  });

  it('caps the rows with "N more", cuts long rows to the width and sanitizes what agents control', () => {
    const events: AgentEvent[] = [start('lead-1', undefined, 0)];
    for (let i = 0; i < 12; i++) events.push(start(`w-${i}`, 'lead-1', i + 1));
    events.push({
      type: 'tool-call',
      agentId: 'w-0',
      depth: 1,
      at: 50,
      toolUseId: 't',
      name: 'Bash',
      input: { command: `echo \x1b]0;owned\x07 ${'x'.repeat(300)}` },
    });
    const lines = treeLines(fold(events), { now: 1000, width: 60, maxRows: 5 });
    expect(lines).toHaveLength(6);
    expect(lines[5]?.text).toBe('\u2193 8 more');
    expect(lines.every((l) => [...l.text].length <= 60)).toBe(true);
    // eslint-disable-next-line no-control-regex
    for (const line of lines) expect(line.text).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it("counts refusals from the host's effect-refused events, marks finished agents done, and fades them out toward /tasks", () => {
    const rows = fold([
      start('lead-1', undefined, 0),
      start('bg-1', 'lead-1', 5, { background: true } as Partial<AgentEvent>),
      {
        type: 'tool-call',
        agentId: 'lead-1',
        depth: 0,
        at: 6,
        toolUseId: 'a',
        name: 'Write',
        input: { file_path: 'x' },
      },
      {
        type: 'effect-refused',
        agentId: 'lead-1',
        depth: 0,
        at: 7,
        capability: 'fs.write',
        summary: 'x (1 chars)',
        code: 'approval_denied',
        reason: 'the user denied this call',
      },
      {
        type: 'tool-result',
        agentId: 'lead-1',
        depth: 0,
        at: 7,
        toolUseId: 'a',
        name: 'Write',
        isError: true,
        content: 'approval_denied: the user denied this call',
        durationMs: 1,
      },
      {
        type: 'tool-call',
        agentId: 'lead-1',
        depth: 0,
        at: 8,
        toolUseId: 'b',
        name: 'Read',
        input: { file_path: 'y' },
      },
      {
        type: 'tool-result',
        agentId: 'lead-1',
        depth: 0,
        at: 9,
        toolUseId: 'b',
        name: 'Read',
        isError: true,
        content: 'not_found: no such file',
        durationMs: 1,
      },
    ]);
    // A background child does not make its parent "waiting".
    expect(rowState(rows['lead-1']!, rows)).toBe('working');
    expect(rows['lead-1']?.refused).toBe(1);
    const ended = reduceRows(rows, end('lead-1', 1000));
    expect(rowState(ended['lead-1']!, ended)).toBe('done');
    expect(ended['lead-1']?.tokens).toBe(1500);
    const soon = treeLines(ended, { now: 2000, width: 100, maxRows: 5, fadeMs: 4000 }).map((l) => l.text);
    expect(soon[0]).toMatch(/\u2713 lead-1 .*completed, 1 refused/);
    const later = treeLines(ended, { now: 6000, width: 100, maxRows: 5, fadeMs: 4000 }).map((l) => l.text);
    expect(later[0]).toMatch(/bg-1/);
    expect(later.at(-1)).toBe('1 finished (/tasks)');
    expect(treeLines(reduceRows(ended, end('bg-1', 1000)), { now: 9000, width: 100, maxRows: 5 })).toEqual(
      [],
    );
  });
});
