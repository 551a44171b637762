// mcp.call through the one policy function: asks by default, reads when the server annotates the
// tool read-only (in every mode that allows reads, plan included), rules as for any tool.
import { describe, expect, it } from 'vitest';
import { decide, type PolicyInput } from '../../../../src/host/capabilities/policy.js';

const call = (over: Partial<PolicyInput>): PolicyInput => ({
  capability: 'mcp.call',
  tool: 'mcp__gh__create_issue',
  projectDir: '/p',
  mode: 'default',
  ...over,
});

describe('the policy on MCP calls', () => {
  it('asks by default, denies in plan mode, allows in bypassPermissions', () => {
    expect(decide(call({})).decision).toBe('ask');
    expect(decide(call({ mode: 'acceptEdits' })).decision).toBe('ask');
    expect(decide(call({ mode: 'plan' })).decision).toBe('deny');
    expect(decide(call({ mode: 'bypassPermissions' })).decision).toBe('allow');
    expect(decide(call({})).suggestions).toEqual(['mcp__gh__create_issue']);
  });

  it('a tool annotated read-only is a read: allowed in every mode, plan included', () => {
    for (const mode of ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const)
      expect(decide(call({ mode, readOnly: true })).decision).toBe('allow');
  });

  it('rules still bind read-only tools: deny and ask win', () => {
    expect(decide(call({ readOnly: true, rules: { deny: ['mcp__gh'] } })).decision).toBe('deny');
    expect(decide(call({ readOnly: true, rules: { ask: ['mcp__gh__*'] } })).decision).toBe('ask');
    expect(decide(call({ rules: { allow: ['mcp__gh__create_issue'] } })).decision).toBe('allow');
    expect(decide(call({ mode: 'plan', rules: { allow: ['mcp__gh'] } })).decision).toBe('allow');
  });
});
