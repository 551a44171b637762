// End to end through the real SDK and the fake server: delegation, limits and restrictions.
import { afterEach, describe, expect, it } from 'vitest';
import {
  errorReply,
  overlaps,
  stallAfterHeaders,
  textReply,
  toolUseReply,
} from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const done = (text = 'done') => textReply(text);

describe('Task delegation', () => {
  it('runs 8 subagents of one message in parallel (requests overlap)', async () => {
    // Each worker's reply waits until all eight have asked (or 10 s): with a fixed 1 s latency, eight
    // threads starting on a loaded machine could ask more than 1 s apart and not overlap. A runtime
    // that ran fewer at once would never reach eight, and its replies would overlap less.
    let asked = 0;
    let allAsked: () => void = () => undefined;
    const eight = new Promise<void>((resolve) => (allAsked = resolve));
    h = await startHarness(
      {
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply(
                Array.from({ length: 8 }, (_, i) => ({
                  name: 'Task',
                  input: { description: `part ${i}`, prompt: `look at part ${i}`, subagent_type: 'worker' },
                })),
              )
            : done('all parts done'),
        worker: async () => {
          if (++asked === 8) allAsked();
          await Promise.race([eight, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
          return textReply('part report');
        },
      },
      { lead: { tools: ['Task'] }, worker: { tools: ['Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'split the work' });
    expect(out.status).toBe('completed');
    const workerRequests = h.server.requests.filter((r) =>
      JSON.stringify(r.body.system ?? '').includes('[worker]'),
    );
    expect(workerRequests).toHaveLength(8);
    expect(overlaps(workerRequests)).toBe(8);
  });

  it('a lead with 12 children at once prints no listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      h = await startHarness(
        {
          lead: ({ turn }) =>
            turn === 0
              ? toolUseReply(
                  Array.from({ length: 12 }, (_, i) => ({
                    name: 'Task',
                    input: { description: `part ${i}`, prompt: `part ${i}`, subagent_type: 'worker' },
                  })),
                )
              : done('all parts done'),
          worker: () => textReply('part report', { latencyMs: 100 }),
        },
        { lead: { tools: ['Task'] }, worker: { tools: ['Read'] } },
        { concurrency: 16 },
      );
      const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'split the work' });
      expect(out.status).toBe('completed');
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a child sees its result as agentId, status, text and a usage line', async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                { name: 'Task', input: { description: 'x', prompt: 'do x', subagent_type: 'worker' } },
              ])
            : done(JSON.stringify(results)),
        worker: () => done('the child report'),
      },
      { lead: { tools: ['Task'] }, worker: { tools: ['Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.result).toMatch(/agentId: worker-/);
    expect(out.result).toMatch(/status: completed/);
    expect(out.result).toMatch(/the child report/);
    expect(out.result).toMatch(/tokens, 1 turns/);
  });

  it('a lead limited to Task(explore) cannot spawn general-purpose and is told which types it may use', async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                { name: 'Task', input: { description: 'x', prompt: 'x', subagent_type: 'general-purpose' } },
              ])
            : done(JSON.stringify(results)),
      },
      { lead: { tools: ['Task(explore)'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.result).toMatch(/may only launch: explore/);
    expect(out.result).toMatch(/is_error\\?":true/);
    expect(
      h.server.requests.every((r) => !JSON.stringify(r.body.system).includes('general-purpose agent')),
    ).toBe(true);
  });

  it('a child of a parent that denies Bash cannot run Bash', async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                { name: 'Task', input: { description: 'x', prompt: 'run ls', subagent_type: 'shell' } },
              ])
            : done(JSON.stringify(results)),
        shell: ({ req, turn, results }) =>
          turn === 0
            ? done(`tools offered: ${(req.body.tools ?? []).map((t) => t.name).join(',') || 'none'}`)
            : done(JSON.stringify(results)),
      },
      { lead: { tools: ['Task', 'Read'], disallowedTools: ['Bash'] }, shell: { tools: ['Bash', 'Read'] } },
      { permissionMode: 'bypassPermissions' },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.result).toMatch(/tools offered: Read/);
    expect(out.result).not.toMatch(/tools offered: [^"]*Bash/);
  });

  it('nesting is refused by default: a child loses Task', async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'Task', input: { description: 'x', prompt: 'x', subagent_type: 'mid' } }])
            : done(JSON.stringify(results)),
        mid: ({ req }) => done(`mid tools: ${(req.body.tools ?? []).map((t) => t.name).join(',')}`),
      },
      { lead: { tools: ['Task'] }, mid: { tools: ['Task', 'Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.result).toMatch(/mid tools: Read/);
  });

  it('nested runs (depth 3, fan-out 4) never deadlock a pool of 2', async () => {
    const fan =
      (type: string) =>
      ({ turn }: { turn: number }) =>
        turn === 0
          ? toolUseReply(
              Array.from({ length: 4 }, (_, i) => ({
                name: 'Task',
                input: { description: `n${i}`, prompt: `n${i}`, subagent_type: type },
              })),
            )
          : done(`${type} parent done`);
    h = await startHarness(
      { l0: fan('l1'), l1: fan('l2'), l2: fan('l3'), l3: () => done('leaf') },
      {
        l0: { tools: ['Task'], maxDepth: 3 },
        l1: { tools: ['Task'], maxDepth: 2 },
        l2: { tools: ['Task'], maxDepth: 1 },
        l3: { tools: ['Read'] },
      },
      { concurrency: 2 },
    );
    const out = await h.runtime.run({ subagent_type: 'l0', prompt: 'fan out', timeout: 60 });
    expect(out.status).toBe('completed');
    const leaves = h.server.requests.filter((r) => JSON.stringify(r.body.system).includes('[l3]'));
    expect(leaves).toHaveLength(64);
  }, 60_000);

  it('background run + TaskOutput', async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) => {
          if (turn === 0)
            return toolUseReply([
              {
                name: 'Task',
                input: {
                  description: 'bg',
                  prompt: 'slow job',
                  subagent_type: 'worker',
                  run_in_background: true,
                },
              },
            ]);
          if (turn === 1) {
            const id = /agentId: ([a-z0-9-]+)/.exec(JSON.stringify(results))?.[1] ?? 'missing';
            return toolUseReply([{ name: 'TaskOutput', input: { agent_id: id, timeout: 10 } }]);
          }
          return done(JSON.stringify(results));
        },
        worker: () => textReply('background report', { latencyMs: 200 }),
      },
      { lead: { tools: ['Task', 'TaskOutput', 'TaskStop'] }, worker: { tools: ['Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(out.result).toMatch(/background report/);
  });
});

describe('limits and failures of one run', () => {
  it('429 then success completes', async () => {
    let calls = 0;
    h = await startHarness(
      { solo: () => (calls++ === 0 ? errorReply(429, { retryAfter: 0.05 }) : done('recovered')) },
      { solo: { tools: ['Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'solo', prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(out.result).toBe('recovered');
  });

  it('529 until retries run out ends failed with the API error', async () => {
    h = await startHarness(
      { solo: () => errorReply(529, { retryAfter: 0.01 }) },
      { solo: { tools: ['Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'solo', prompt: 'go' });
    expect(out.status).toBe('failed');
    expect(out.error?.message).toMatch(/529/);
  });

  it('a stalled stream ends by the idle timeout', async () => {
    h = await startHarness(
      { solo: () => stallAfterHeaders() },
      { solo: { tools: ['Read'], idleTimeout: 0.5 } },
    );
    const out = await h.runtime.run({ subagent_type: 'solo', prompt: 'go', timeout: 20 });
    expect(['timeout', 'failed']).toContain(out.status);
    expect(out.error?.message).toMatch(/idle|no model output|stalled|bytes/i);
    expect(out.durationMs).toBeLessThan(5000);
  });

  it('max_turns ends the run with status max_turns', async () => {
    h = await startHarness(
      { solo: () => toolUseReply([{ name: 'LS', input: { path: '.' } }]) },
      { solo: { tools: ['LS'], maxTurns: 2 } },
    );
    const out = await h.runtime.run({ subagent_type: 'solo', prompt: 'go' });
    expect(out.status).toBe('max_turns');
    expect(out.turns).toBe(2);
  });

  it('a refusal fails with the reason', async () => {
    h = await startHarness(
      { solo: () => textReply('I will not do that.', { stopReason: 'refusal' }) },
      { solo: { tools: ['Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'solo', prompt: 'go' });
    expect(out.status).toBe('failed');
    expect(out.error?.code).toBe('model_refusal');
  });

  it('a run over its token budget ends budget_exceeded with its partial result', async () => {
    h = await startHarness(
      {
        solo: () =>
          toolUseReply([{ name: 'LS', input: { path: '.' } }], {
            text: 'partial thoughts',
            usage: { input_tokens: 600, output_tokens: 10 },
          }),
      },
      { solo: { tools: ['LS'], tokenBudget: 1000 } },
    );
    const out = await h.runtime.run({ subagent_type: 'solo', prompt: 'go' });
    expect(out.status).toBe('budget_exceeded');
    expect(out.result).toMatch(/partial thoughts/);
  });

  it('tool errors reach the model as is_error results', async () => {
    h = await startHarness(
      {
        solo: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'Read', input: { file_path: 'does-not-exist.txt' } }])
            : done(JSON.stringify(results)),
      },
      { solo: { tools: ['Read'] } },
    );
    const out = await h.runtime.run({ subagent_type: 'solo', prompt: 'go' });
    expect(out.result).toMatch(/"is_error":true/);
    expect(out.result).toMatch(/not_found/);
  });

  it('resume continues a finished run from its transcript', async () => {
    h = await startHarness(
      { solo: ({ req }) => done(`saw ${req.body.messages.length} messages`) },
      { solo: { tools: ['Read'] } },
    );
    const first = await h.runtime.run({ subagent_type: 'solo', prompt: 'first' });
    expect(first.result).toBe('saw 1 messages');
    const second = await h.runtime.run({ subagent_type: 'solo', prompt: 'second', resume: first.agentId });
    expect(second.agentId).toBe(first.agentId);
    expect(second.result).toBe('saw 3 messages');
    await expect(
      h.runtime.run({ subagent_type: 'solo', prompt: 'x', resume: 'solo-unknown' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('grants that must not leak', () => {
  it('agents exposed as tools are offered only where the Task grant names them', async () => {
    h = await startHarness(
      {
        reader: ({ req }) => done(`tools: ${(req.body.tools ?? []).map((t) => t.name).join(',')}`),
        narrow: ({ req }) => done(`tools: ${(req.body.tools ?? []).map((t) => t.name).join(',')}`),
        broad: ({ req }) => done(`tools: ${(req.body.tools ?? []).map((t) => t.name).join(',')}`),
      },
      {
        reader: { tools: ['Read'] },
        narrow: { tools: ['Task(explore)'] },
        broad: { tools: ['Task'] },
        deployer: { tools: ['Bash'], exposeAsTool: true },
      },
    );
    expect((await h.runtime.run({ subagent_type: 'reader', prompt: 'x' })).result).toBe('tools: Read');
    expect((await h.runtime.run({ subagent_type: 'narrow', prompt: 'x' })).result).toBe('tools: Task');
    expect((await h.runtime.run({ subagent_type: 'broad', prompt: 'x' })).result).toBe(
      'tools: Task,deployer',
    );
  });

  it('resuming a child inside a tree does not reset what the tree has spent', async () => {
    let childRuns = 0;
    h = await startHarness(
      {
        // The lead's own tokens are fixed, so the sum does not depend on the size of its prompt.
        lead: ({ turn, results }) => {
          const usage = { input_tokens: 100, output_tokens: 10 };
          if (turn === 0)
            return toolUseReply(
              [{ name: 'Task', input: { description: 'a', prompt: 'first', subagent_type: 'worker' } }],
              { usage },
            );
          if (turn === 1) {
            const id = /agentId: ([a-z0-9-]+)/.exec(JSON.stringify(results))?.[1] ?? 'missing';
            return toolUseReply(
              [
                {
                  name: 'Task',
                  input: { description: 'b', prompt: 'again', subagent_type: 'worker', resume: id },
                },
              ],
              { usage },
            );
          }
          return textReply(JSON.stringify(results), { usage });
        },
        worker: () => {
          childRuns++;
          return textReply('child work', {
            usage: { input_tokens: childRuns === 1 ? 900 : 1500, output_tokens: 10 },
          });
        },
      },
      { lead: { tools: ['Task'] }, worker: { tools: ['Read'] } },
      { tokenBudget: 2500 },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    // 900 + 1500 child tokens plus the lead's own pass the budget only if the resumed run adds to
    // the first one instead of replacing it.
    expect(childRuns).toBe(2);
    expect(out.status).toBe('budget_exceeded');
  });
});
