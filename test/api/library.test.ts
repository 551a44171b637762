// The library API as a script uses it: agents defined as objects, cancelling with an AbortSignal,
// `await using`, events kept only for a caller that reads them, and errors that name options.
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, isCadreError, type AgentEvent, type AgentInput } from '../../src/index.js';
import { flagWording } from '../../src/host/cli/flag-wording.js';
import { systemText, textReply } from '../support/fake-anthropic.js';
import { tempProject } from '../support/project.js';
import { startHarness, type Harness } from '../host/agents/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const slow = () => textReply('late', { latencyMs: 20_000 });

describe('agents defined in code', () => {
  it('runs an agent given as an object, with its prompt and tools', async () => {
    const agents: Record<string, AgentInput> = {
      reviewer: {
        description: 'Reviews code',
        prompt: '[reviewer] You review code.',
        tools: ['Read', 'Grep'],
      },
    };
    h = await startHarness({ reviewer: () => textReply('looks fine') }, {}, { agents });
    const loaded = h.runtime.registry.agents.find((a) => a.name === 'reviewer');
    expect(loaded?.source).toBe('cli');
    expect(loaded?.tools).toEqual(['Read', 'Grep']);
    const out = await h.runtime.run({ subagent_type: 'reviewer', prompt: 'check src/' });
    expect(out).toMatchObject({ status: 'completed', result: 'looks fine' });
    const request = h.server.requests[0];
    expect(request && systemText(request.body)).toContain('You review code.');
    expect(request?.body.tools?.map((t) => t.name).sort()).toEqual(['Grep', 'Read']);
  });

  it('checks each definition like a file: an error names the agent and its field', async () => {
    const project = await tempProject();
    try {
      const runtime = await createRuntime({
        cwd: project.dir,
        home: project.home,
        env: {},
        agents: {
          good: { description: 'fine', prompt: 'ok' },
          bad: { description: 'typo', prompt: 'x', tools: ['Raed'] },
          worse: { description: 'no', prompt: 'x', maxTurns: -1 },
        },
      });
      try {
        expect(runtime.registry.agents.map((a) => a.name)).toContain('good');
        expect(runtime.registry.agents.map((a) => a.name)).not.toContain('bad');
        const issues = runtime.registry.errors.filter((e) => e.path === 'options.agents');
        expect(issues.map((e) => e.field)).toEqual(expect.arrayContaining(['bad.tools', 'worse.maxTurns']));
        expect(issues.find((e) => e.field === 'bad.tools')?.message).toMatch(/Read/);
      } finally {
        await runtime.close();
      }
    } finally {
      await project.cleanup();
    }
  });
});

describe('cancelling with a signal', () => {
  it('task() and run() end as cancelled when their signal aborts', async () => {
    h = await startHarness({ w: slow }, { w: {} });
    const controller = new AbortController();
    const handle = await h.runtime.task({ subagent_type: 'w', prompt: 'go' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    expect((await handle.result).status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(10_000);

    const ran = await h.runtime.run(
      { subagent_type: 'w', prompt: 'go' },
      { signal: AbortSignal.timeout(200) },
    );
    expect(ran.status).toBe('cancelled');
  });

  it('an aborted signal cancels at once, and batch() takes one too', async () => {
    h = await startHarness({ w: slow }, { w: {} });
    const aborted = AbortSignal.abort();
    expect((await h.runtime.run({ subagent_type: 'w', prompt: 'go' }, { signal: aborted })).status).toBe(
      'cancelled',
    );
    const controller = new AbortController();
    const results = h.runtime.batch(
      [
        { id: 'a', agent: 'w', prompt: 'one' },
        { id: 'b', agent: 'w', prompt: 'two' },
      ],
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 200);
    const statuses: string[] = [];
    for await (const r of results) statuses.push(r.status);
    expect(statuses).toEqual(['cancelled', 'cancelled']);
  });
});

describe('disposal', () => {
  it('await using closes the runtime at the end of its block', async () => {
    const project = await tempProject();
    let closed: { stats(): { threads: number } } | undefined;
    try {
      {
        await using runtime = await createRuntime({ cwd: project.dir, home: project.home, env: {} });
        const out = await runtime.run({ subagent_type: 'explore', prompt: 'quick: where is the README?' });
        expect(out.status).toBe('completed');
        closed = runtime;
      }
      expect(closed?.stats().threads).toBe(0);
    } finally {
      await project.cleanup();
    }
  });
});

describe('events', () => {
  it('a caller that reads events gets them all, from agent-start to agent-end', async () => {
    h = await startHarness({ w: () => textReply('hi') }, { w: {} });
    const handle = await h.runtime.task({ subagent_type: 'w', prompt: 'go' });
    const types: AgentEvent['type'][] = [];
    for await (const event of handle.events) types.push(event.type);
    expect(types[0]).toBe('agent-start');
    expect(types.at(-1)).toBe('agent-end');
  });

  it('events not read when the handle arrives are not kept', async () => {
    h = await startHarness({ w: () => textReply('hi', { latencyMs: 300 }) }, { w: {} });
    const handle = await h.runtime.task({ subagent_type: 'w', prompt: 'go' });
    await new Promise((resolve) => setImmediate(resolve));
    await handle.result;
    const late: AgentEvent[] = [];
    for await (const event of handle.events) late.push(event);
    expect(late).toEqual([]);
  });
});

describe('errors name options', () => {
  it('a missing cwd is reported as options.cwd', async () => {
    const error: unknown = await createRuntime({ cwd: '/nonexistent/cadre-dir' }).catch((e: unknown) => e);
    expect(isCadreError(error) && error.message).toMatch(/^options\.cwd: directory .* does not exist/);
  });
});

describe('the CLI speaks of flags', () => {
  it('prints an option named by the library as the flag that sets it', () => {
    expect(flagWording('options.cwd: directory /x does not exist')).toBe(
      '--cwd: directory /x does not exist',
    );
    expect(flagWording('model "replay" needs a cassette (options.replay FILE)')).toContain('(--replay FILE)');
    expect(flagWording('options.record: ... pass options.model provider:model')).toBe(
      '--record: ... pass --model provider:model',
    );
    // Only options the CLI sets from a flag are rewritten.
    expect(flagWording('options.approvals: x')).toBe('options.approvals: x');
  });
});
