import { describe, expect, it } from 'vitest';
import type { LoadedAgent } from '../../../src/shared/agent-definition.js';
import { DEFAULT_CAPS } from '../../../src/shared/run-spec.js';
import type { TaskInput } from '../../../src/shared/task.js';
import { mergeConfig } from '../../../src/host/config/merge.js';
import type { CadreConfig } from '../../../src/host/config.js';
import { planRun, type PlanRequest, type RunPlan } from '../../../src/host/agents/run-plan.js';

const config: CadreConfig = mergeConfig({}, {}, { cwd: '/project', home: '/home/user' });
const keyed = { ANTHROPIC_API_KEY: 'sk-test' };

function agent(fields: Partial<LoadedAgent> = {}): LoadedAgent {
  return {
    name: 'worker',
    description: 'test agent',
    prompt: 'You work.',
    tools: ['Read', 'Grep', 'Glob', 'Write', 'Edit', 'Bash', 'Task'],
    disallowedTools: [],
    model: 'inherit',
    timeout: 300,
    idleTimeout: 120,
    exposeAsTool: false,
    maxDepth: 2,
    source: 'cli',
    path: '--agents',
    overrides: [],
    ...fields,
  };
}

function plan(request: Partial<Omit<PlanRequest, 'input'>> & { input?: Partial<TaskInput> } = {}): RunPlan {
  const { input, ...rest } = request;
  return planRun({
    def: agent(),
    parent: undefined,
    config,
    env: keyed,
    options: {},
    cassette: undefined,
    ...rest,
    input: { subagent_type: 'worker', prompt: 'do it', ...input },
  });
}

/** A parent as a child's plan sees it. */
const parentOf = (p: RunPlan) => ({ grant: p.grant, modelName: p.model.model, depth: p.depth });

describe('planRun: the model', () => {
  it('takes the call, then the definition, then the parent, then the configured default', () => {
    const lead = plan({ input: { model: 'claude-lead-1' } });
    expect(lead.model.model).toBe('claude-lead-1');
    expect(plan({ def: agent({ model: 'claude-def-1' }) }).model.model).toBe('claude-def-1');
    expect(
      plan({ def: agent({ model: 'claude-def-1' }), input: { model: 'claude-call-1' } }).model.model,
    ).toBe('claude-call-1');
    expect(plan({ parent: parentOf(lead) }).model.model).toBe('claude-lead-1');
    expect(plan({ parent: parentOf(lead), input: { model: 'inherit' } }).model.model).toBe('claude-lead-1');
    expect(plan({ config: { ...config, defaultModel: 'claude-default-1' } }).model.model).toBe(
      'claude-default-1',
    );
  });

  it("maps aliases through config, and the runtime's model stands in for the task's at the top level only", () => {
    const aliased = { ...config, models: { ...config.models, haiku: 'claude-haiku-custom' } };
    expect(plan({ config: aliased, input: { model: 'haiku' } }).model.model).toBe('claude-haiku-custom');
    const withRuntimeModel = plan({
      options: { model: 'claude-cli-1' },
      def: agent({ model: 'claude-def-1' }),
    });
    expect(withRuntimeModel.model.model).toBe('claude-cli-1');
    expect(plan({ options: { model: 'claude-cli-1' }, input: { model: 'claude-call-1' } }).model.model).toBe(
      'claude-call-1',
    );
    const lead = plan({ input: { model: 'claude-lead-1' } });
    const child = plan({ options: { model: 'claude-cli-1' }, parent: parentOf(lead) });
    expect(child.model.model).toBe('claude-lead-1');
  });

  it('runs on the offline model without a key, and on a replay when a cassette is given', () => {
    expect(plan({ env: {} }).model.provider).toBe('offline');
    expect(plan({ env: {}, cassette: '{"x":1}\n' }).model).toMatchObject({
      provider: 'replay',
      cassette: '{"x":1}\n',
    });
  });

  it('refuses a provider that is not configured, naming it', () => {
    expect(() => plan({ input: { model: 'nowhere:some-model' } })).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: expect.stringMatching(/no provider "nowhere"/),
      }),
    );
  });

  it('refuses to record a run on the offline model, naming options.record', () => {
    expect(() => plan({ env: {}, options: { record: '/tmp/cassette.jsonl' } })).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: expect.stringMatching(/^options\.record: /),
      }),
    );
    expect(plan({ options: { record: '/tmp/cassette.jsonl' } }).model).toMatchObject({
      provider: 'anthropic',
      record: true,
    });
  });
});

describe('planRun: the grant', () => {
  it('never gives a child more than its parent: mode, denied tools and depth narrow down the tree', () => {
    const lead = plan({
      def: agent({ disallowedTools: ['Bash'], maxDepth: 2 }),
      input: { permission_mode: 'acceptEdits' },
      config: { ...config, maxDepth: 2 },
    });
    expect(lead.grant.depthLeft).toBe(2);
    expect(lead.grant.tools).not.toContain('Bash');
    const child = plan({
      def: agent({ name: 'child', permissionMode: 'bypassPermissions' }),
      parent: parentOf(lead),
      input: { subagent_type: 'child', permission_mode: 'bypassPermissions' },
    });
    // A child asking for a looser mode keeps its parent's; its own definition cannot loosen it either.
    expect(child.grant.mode).toBe('acceptEdits');
    expect(child.grant.tools).not.toContain('Bash');
    expect(child.grant.deniedTools).toContain('Bash');
    expect(child.grant.depthLeft).toBe(1);
    expect(child.depth).toBe(1);
    for (const tool of child.grant.tools) expect(lead.grant.tools).toContain(tool);
    const grandchild = plan({ parent: parentOf(child) });
    // At the depth allowance the nesting tools are gone.
    expect(grandchild.grant.depthLeft).toBe(0);
    expect(grandchild.grant.tools).not.toContain('Task');
    expect(grandchild.depth).toBe(2);
  });

  it('lets a call make a mode stricter, never looser; plan mode drops every mutating tool', () => {
    const lead = plan({ input: { permission_mode: 'default' } });
    const planned = plan({ parent: parentOf(lead), input: { permission_mode: 'plan' } });
    expect(planned.grant.mode).toBe('plan');
    expect(planned.grant.tools).toEqual(expect.not.arrayContaining(['Write', 'Edit', 'Bash']));
    const looser = plan({ parent: parentOf(planned), input: { permission_mode: 'bypassPermissions' } });
    expect(looser.grant.mode).toBe('plan');
    expect(looser.grant.tools).toEqual(expect.not.arrayContaining(['Write', 'Edit', 'Bash']));
  });

  it("takes the runtime's default mode and maxDepth for a top-level run", () => {
    const strict = {
      ...config,
      permissions: { ...config.permissions, defaultMode: 'plan' as const },
      maxDepth: 0,
    };
    const root = plan({ config: strict });
    expect(root.grant.mode).toBe('plan');
    // A global maxDepth of 0 means no subagents at all.
    expect(root.grant.tools).not.toContain('Task');
    expect(root.depth).toBe(0);
  });
});

describe('planRun: limits and caps', () => {
  it("takes the task's timeout over the definition's, in ms, and bounds the model stream's idle timeout by both", () => {
    const byDef = plan({ def: agent({ timeout: 300, idleTimeout: 120 }) });
    expect(byDef.limits).toEqual({ timeoutMs: 300_000, idleTimeoutMs: 120_000 });
    expect(byDef.model.streamIdleTimeoutMs).toBe(120_000);
    const short = plan({ def: agent({ timeout: 300, idleTimeout: 120 }), input: { timeout: 30 } });
    expect(short.limits).toEqual({ timeoutMs: 30_000, idleTimeoutMs: 120_000 });
    expect(short.model.streamIdleTimeoutMs).toBe(30_000);
  });

  it('takes max turns from the task, the definition, the runtime, else 50', () => {
    expect(plan().maxTurns).toBe(50);
    expect(plan({ options: { maxTurns: 20 } }).maxTurns).toBe(20);
    expect(plan({ options: { maxTurns: 20 }, def: agent({ maxTurns: 10 }) }).maxTurns).toBe(10);
    expect(
      plan({ options: { maxTurns: 20 }, def: agent({ maxTurns: 10 }), input: { max_turns: 5 } }).maxTurns,
    ).toBe(5);
  });

  it("takes the task's token budget over the definition's, and none by default", () => {
    expect(plan().tokenBudget).toBeUndefined();
    expect(plan({ def: agent({ tokenBudget: 5000 }) }).tokenBudget).toBe(5000);
    expect(plan({ def: agent({ tokenBudget: 5000 }), input: { token_budget: 900 } }).tokenBudget).toBe(900);
  });

  it('takes the reply and fan-out caps from config, the conversation cap never below one whole reply', () => {
    expect(plan().caps).toEqual(DEFAULT_CAPS);
    const raised = plan({
      config: { ...config, maxReplyChars: 3_000_000, maxToolInputChars: 2_500_000, maxTasksPerMessage: 4 },
    });
    expect(raised.caps).toMatchObject({
      maxReplyChars: 3_000_000,
      maxToolInputChars: 2_500_000,
      maxConversationChars: 5_500_000,
      maxTasksPerMessage: 4,
    });
    const lowered = plan({ config: { ...config, maxReplyChars: 1000, maxToolInputChars: 1000 } });
    expect(lowered.caps.maxConversationChars).toBe(DEFAULT_CAPS.maxConversationChars);
  });

  it('is pure: the same request plans the same run', () => {
    expect(plan({ input: { timeout: 12 } })).toEqual(plan({ input: { timeout: 12 } }));
  });
});
