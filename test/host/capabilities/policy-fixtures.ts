// Shared fixtures of the policy tests: a project path, resolved paths inside it, one call per
// capability, and the row shape of the rule tables.
import type { PolicyInput, PolicyRules } from '../../../src/host/capabilities/policy.js';
import type { PermissionMode } from '../../../src/shared/task.js';

/** The project directory every fixture call uses. */
export const P = '/work/proj';

/** A resolved path inside the project (no symlinks). */
export function inside(rel: string) {
  const abs = `${P}/${rel}`;
  return { requested: rel, absolute: abs, real: abs, exists: true };
}

/** A call of `capability` in the project, without a mode. */
export function call(capability: string, fields: Partial<PolicyInput> = {}): Omit<PolicyInput, 'mode'> {
  return { capability, projectDir: P, homeDir: '/home/u', ...fields };
}

/** One representative call per capability (and one unknown capability). */
export const CALLS: Record<string, Omit<PolicyInput, 'mode'>> = {
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

/** One row of a rule table. */
export interface Row {
  name: string;
  cap: string;
  fields?: Partial<PolicyInput>;
  mode?: PermissionMode;
  rules: PolicyRules;
  expected: 'allow' | 'ask' | 'deny';
  reason?: string;
}
