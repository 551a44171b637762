import { beforeAll, describe, expect, it } from 'vitest';
import { decide, type PolicyInput, loadShellGrammar } from '../../../src/host/capabilities/policy.js';
import type { PermissionMode } from '../../../src/shared/task.js';
import { CALLS } from './policy-fixtures.js';

// Commands are read with the bash grammar, loaded once per process.
beforeAll(() => loadShellGrammar());

const MODES: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];

// Expected verdict per mode, in MODES order, with no rules at all.
const MODE_TABLE: Record<string, [string, string, string, string]> = {
  'fs.read': ['allow', 'allow', 'allow', 'allow'],
  'fs.readMany': ['allow', 'allow', 'allow', 'allow'],
  'fs.glob': ['allow', 'allow', 'allow', 'allow'],
  'fs.stat': ['allow', 'allow', 'allow', 'allow'],
  'fs.list': ['allow', 'allow', 'allow', 'allow'],
  'fs.write': ['ask', 'allow', 'deny', 'allow'],
  'exec.run': ['ask', 'ask', 'deny', 'allow'],
  'web.fetch': ['ask', 'ask', 'ask', 'allow'],
  'mcp.call': ['ask', 'ask', 'deny', 'allow'],
  'agents.task': ['allow', 'allow', 'allow', 'allow'],
  'agents.output': ['allow', 'allow', 'allow', 'allow'],
  'agents.stop': ['allow', 'allow', 'allow', 'allow'],
  'todos.read': ['allow', 'allow', 'allow', 'allow'],
  'todos.write': ['allow', 'allow', 'allow', 'allow'],
  'events.emit': ['allow', 'allow', 'allow', 'allow'],
  'fs.delete': ['deny', 'deny', 'deny', 'deny'],
};

describe('decide: modes × capabilities with no rules', () => {
  const rows = Object.entries(MODE_TABLE).flatMap(([cap, verdicts]) =>
    MODES.map((mode, i) => [cap, mode, verdicts[i]] as const),
  );
  it.each(rows)('%s in %s mode → %s', (cap, mode, expected) => {
    const result = decide({ ...(CALLS[cap] as PolicyInput), mode });
    expect(result.decision).toBe(expected);
    expect(result.reason.length).toBeGreaterThan(10);
  });

  it('says which mode would allow a write or a command', () => {
    const write = decide({ ...(CALLS['fs.write'] as PolicyInput), mode: 'default' });
    expect(write.reason).toContain('--permission-mode acceptEdits');
    expect(write.suggestions).toEqual(['Edit(src/**)']);
    const plan = decide({ ...(CALLS['fs.write'] as PolicyInput), mode: 'plan' });
    expect(plan.reason).toContain(
      'denied in plan mode (read-only); use --permission-mode default or acceptEdits',
    );
    expect(plan.code).toBe('permission_denied');
    const exec = decide({ ...(CALLS['exec.run'] as PolicyInput), mode: 'acceptEdits' });
    expect(exec.reason).toContain('acceptEdits mode');
    expect(exec.reason).toContain('bypassPermissions');
    expect(exec.suggestions).toEqual(['Bash(npm test:*)']);
    const web = decide({ ...(CALLS['web.fetch'] as PolicyInput), mode: 'default' });
    expect(web.suggestions).toEqual(['WebFetch(domain:example.com)']);
  });
});
