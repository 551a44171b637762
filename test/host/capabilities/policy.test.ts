import { describe, expect, it } from 'vitest';
import { decide, type PolicyInput } from '../../../src/host/capabilities/policy.js';
import type { PermissionMode } from '../../../src/shared/task.js';

const P = '/work/proj';
const MODES: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];

/** A resolved path inside the project (no symlinks). */
function inside(rel: string) {
  const abs = `${P}/${rel}`;
  return { requested: rel, absolute: abs, real: abs, exists: true };
}

function call(capability: string, fields: Partial<PolicyInput> = {}): Omit<PolicyInput, 'mode'> {
  return { capability, projectDir: P, homeDir: '/home/u', ...fields };
}

const CALLS: Record<string, Omit<PolicyInput, 'mode'>> = {
  'fs.read': call('fs.read', { path: inside('src/a.ts') }),
  'fs.readMany': call('fs.readMany', { paths: [inside('src/a.ts'), inside('src/b.ts')] }),
  'fs.glob': call('fs.glob', { path: inside('src'), pattern: '**/*.ts' }),
  'fs.stat': call('fs.stat', { path: inside('src/a.ts') }),
  'fs.list': call('fs.list', { path: inside('src') }),
  'fs.write': call('fs.write', { path: inside('src/a.ts') }),
  'exec.run': call('exec.run', { command: 'npm test' }),
  'web.fetch': call('web.fetch', { url: 'https://example.com/page' }),
  'mcp.call': call('mcp.call', { tool: 'mcp__github__create_issue' }),
  'agents.task': call('agents.task', { agentType: 'explore' }),
  'agents.output': call('agents.output'),
  'agents.stop': call('agents.stop'),
  'todos.read': call('todos.read'),
  'todos.write': call('todos.write'),
  'events.emit': call('events.emit'),
  'fs.delete': call('fs.delete', { path: inside('src/a.ts') }),
};

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
