// The run's memo of policy verdicts for calls judged by name (MCP tools): it must answer exactly as
// the policy function would for the same input, whatever changed since the verdict was kept.
import { describe, expect, it } from 'vitest';
import { decide, type PolicyInput, type PolicyRules } from '../../../src/host/capabilities/policy.js';
import { VerdictMemo } from '../../../src/host/capabilities/verdict-memo.js';
import type { PermissionMode } from '../../../src/shared/task.js';

type Side = Omit<PolicyInput, 'capability' | 'tool' | 'readOnly'>;

function side(rules: PolicyRules, mode: PermissionMode = 'default'): Side {
  return {
    projectDir: '/p',
    extraRoots: ['/x'],
    homeDir: '/h',
    mode,
    rules,
    records: ['/h/.cadre'],
    protect: [],
  };
}

const call = (tool: string, readOnly = false) => ({ capability: 'mcp.call', tool, readOnly });

/** The memo's verdict, checked against the policy function asked afresh. */
function judged(memo: VerdictMemo, named: ReturnType<typeof call>, input: Side) {
  const verdict = memo.decide(named, input);
  expect(verdict).toEqual(decide({ ...input, ...named }));
  return verdict.decision;
}

describe('VerdictMemo', () => {
  it('answers as the policy does, for allow, ask and deny, read-only tools and modes', () => {
    const memo = new VerdictMemo();
    const rules = { allow: ['mcp__gh__get_issue'], ask: [], deny: ['mcp__gh__delete_repo'] };
    for (let round = 0; round < 2; round++) {
      expect(judged(memo, call('mcp__gh__get_issue'), side(rules))).toBe('allow');
      expect(judged(memo, call('mcp__gh__create_issue'), side(rules))).toBe('ask');
      expect(judged(memo, call('mcp__gh__delete_repo'), side(rules))).toBe('deny');
      expect(judged(memo, call('mcp__gh__list', true), side(rules))).toBe('allow');
      expect(judged(memo, call('mcp__gh__list', false), side(rules))).toBe('ask');
      expect(judged(memo, call('mcp__gh__create_issue'), side(rules, 'plan'))).toBe('deny');
      expect(judged(memo, call('mcp__gh__delete_repo'), side(rules, 'bypassPermissions'))).toBe('deny');
      expect(judged(memo, call('mcp__gh__create_issue'), side(rules, 'bypassPermissions'))).toBe('allow');
    }
  });

  it('judges afresh when a rule list is changed in place after a verdict was kept', () => {
    const memo = new VerdictMemo();
    const rules = { allow: ['mcp__gh'], ask: [] as string[], deny: [] as string[] };
    const input = side(rules);
    expect(judged(memo, call('mcp__gh__delete_repo'), input)).toBe('allow');
    rules.deny.push('mcp__gh__delete_repo');
    expect(judged(memo, call('mcp__gh__delete_repo'), input)).toBe('deny');
    rules.deny.pop();
    rules.ask.push('mcp__gh__*');
    expect(judged(memo, call('mcp__gh__delete_repo'), input)).toBe('ask');
    rules.ask[0] = 'mcp__other__*';
    expect(judged(memo, call('mcp__gh__delete_repo'), input)).toBe('allow');
  });

  it('judges afresh when a rule object, the mode or the places change', () => {
    const memo = new VerdictMemo();
    const deny = { rule: 'mcp__other__x', origin: '/p/.cadre/config.json' };
    const rules = { deny: [deny] };
    const input = side(rules);
    expect(judged(memo, call('mcp__gh__x'), input)).toBe('ask');
    deny.rule = 'mcp__gh__x';
    expect(judged(memo, call('mcp__gh__x'), input)).toBe('deny');
    deny.rule = 'mcp__other__x';
    expect(judged(memo, call('mcp__gh__x'), input)).toBe('ask');
    input.mode = 'bypassPermissions';
    expect(judged(memo, call('mcp__gh__x'), input)).toBe('allow');
    input.projectDir = 'relative';
    expect(judged(memo, call('mcp__gh__x'), input)).toBe('deny');
    input.projectDir = '/p';
    (input.records as string[]).push('relative');
    expect(judged(memo, call('mcp__gh__x'), input)).toBe('deny');
  });

  it('never keeps a verdict for an input it cannot compare by value', () => {
    const memo = new VerdictMemo();
    const odd = { toString: () => 'mcp__gh' } as unknown as string;
    const input = side({ allow: [odd] });
    const first = memo.decide(call('mcp__gh__x'), input);
    expect(first).toEqual(decide({ ...input, ...call('mcp__gh__x') }));
    (input.rules!.allow as unknown[])[0] = 'mcp__gh';
    expect(judged(memo, call('mcp__gh__x'), input)).toBe('allow');
  });
});
