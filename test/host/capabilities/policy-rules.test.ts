import { beforeAll, describe, expect, it } from 'vitest';
import { decide, type PolicyInput, loadShellGrammar } from '../../../src/host/capabilities/policy.js';
import { CALLS, P, type Row, call, inside } from './policy-fixtures.js';

// Commands are read with the bash grammar, loaded once per process.
beforeAll(() => loadShellGrammar());

const RULE_TABLE: Row[] = [
  // Bash rules
  {
    name: 'prefix allow',
    cap: 'exec.run',
    fields: { command: 'npm test -- --watch' },
    rules: { allow: ['Bash(npm test:*)'] },
    expected: 'allow',
    reason: 'allow rule "Bash(npm test:*)"',
  },
  {
    name: 'prefix needs a word boundary',
    cap: 'exec.run',
    fields: { command: 'npm testing' },
    rules: { allow: ['Bash(npm test:*)'] },
    expected: 'ask',
  },
  {
    name: 'exact allow',
    cap: 'exec.run',
    fields: { command: 'npm test' },
    rules: { allow: ['Bash(npm test)'] },
    expected: 'allow',
  },
  {
    name: 'exact does not match more words',
    cap: 'exec.run',
    fields: { command: 'npm test x' },
    rules: { allow: ['Bash(npm test)'] },
    expected: 'ask',
  },
  {
    name: 'wildcard with optional tail',
    cap: 'exec.run',
    fields: { command: 'ls' },
    rules: { allow: ['Bash(ls *)'] },
    expected: 'allow',
  },
  {
    name: 'wildcard keeps the word boundary',
    cap: 'exec.run',
    fields: { command: 'lsof -i' },
    rules: { allow: ['Bash(ls *)'] },
    expected: 'ask',
  },
  {
    name: 'wildcard in the middle',
    cap: 'exec.run',
    fields: { command: 'git push origin main' },
    rules: { allow: ['Bash(git * main)'] },
    expected: 'allow',
  },
  {
    name: 'bare Bash allows any command',
    cap: 'exec.run',
    fields: { command: 'make all && ./run.sh' },
    rules: { allow: ['Bash'] },
    expected: 'allow',
  },
  {
    name: 'deny wins over allow',
    cap: 'exec.run',
    fields: { command: 'npm test' },
    rules: { allow: ['Bash(npm test:*)'], deny: ['Bash(npm:*)'] },
    expected: 'deny',
    reason: 'deny rule "Bash(npm:*)"',
  },
  {
    name: 'deny wins over bare allow',
    cap: 'exec.run',
    fields: { command: 'rm -rf build' },
    rules: { allow: ['Bash'], deny: ['Bash(rm:*)'] },
    expected: 'deny',
  },
  {
    name: 'deny holds in bypassPermissions',
    cap: 'exec.run',
    mode: 'bypassPermissions',
    fields: { command: 'rm -rf build' },
    rules: { deny: ['Bash(rm:*)'] },
    expected: 'deny',
  },
  {
    name: 'bare Bash deny denies everything',
    cap: 'exec.run',
    mode: 'bypassPermissions',
    fields: { command: 'ls' },
    rules: { deny: ['Bash'] },
    expected: 'deny',
  },
  {
    name: 'ask wins over allow',
    cap: 'exec.run',
    fields: { command: 'git push' },
    rules: { allow: ['Bash(git:*)'], ask: ['Bash(git push:*)'] },
    expected: 'ask',
    reason: 'ask rule "Bash(git push:*)"',
  },
  {
    name: 'ask rule is ignored in bypassPermissions',
    cap: 'exec.run',
    mode: 'bypassPermissions',
    fields: { command: 'git push' },
    rules: { ask: ['Bash(git push:*)'] },
    expected: 'allow',
  },
  {
    name: 'plan denies commands even when allowed',
    cap: 'exec.run',
    mode: 'plan',
    fields: { command: 'git status' },
    rules: { allow: ['Bash(git status:*)'] },
    expected: 'deny',
    reason: 'plan mode',
  },
  {
    name: 'acceptEdits still asks for commands',
    cap: 'exec.run',
    mode: 'acceptEdits',
    fields: { command: 'git status' },
    rules: {},
    expected: 'ask',
  },
  {
    name: 'acceptEdits runs allowed commands',
    cap: 'exec.run',
    mode: 'acceptEdits',
    fields: { command: 'git status' },
    rules: { allow: ['Bash(git status:*)'] },
    expected: 'allow',
  },
  // Write / Edit rules
  {
    name: 'Write rule allows',
    cap: 'fs.write',
    fields: { path: inside('src/deep/a.ts') },
    rules: { allow: ['Write(src/**)'] },
    expected: 'allow',
  },
  {
    name: 'Edit rule allows writes too',
    cap: 'fs.write',
    fields: { path: inside('src/a.ts') },
    rules: { allow: ['Edit(src/**)'] },
    expected: 'allow',
  },
  {
    name: 'MultiEdit is an alias of Edit',
    cap: 'fs.write',
    fields: { path: inside('src/a.ts') },
    rules: { allow: ['MultiEdit(src/**)'] },
    expected: 'allow',
  },
  {
    name: 'Write rule elsewhere does not apply',
    cap: 'fs.write',
    fields: { path: inside('lib/a.ts') },
    rules: { allow: ['Write(src/**)'] },
    expected: 'ask',
  },
  {
    name: 'Write rule does not open reads of denied files',
    cap: 'fs.read',
    fields: { path: inside('src/a.ts') },
    rules: { deny: ['Read(src/**)'], allow: ['Write(src/**)'] },
    expected: 'deny',
  },
  {
    name: 'deny Edit in acceptEdits',
    cap: 'fs.write',
    mode: 'acceptEdits',
    fields: { path: inside('src/gen/x.ts') },
    rules: { deny: ['Edit(src/gen/**)'] },
    expected: 'deny',
  },
  {
    name: 'plan denies writes even with an allow rule',
    cap: 'fs.write',
    mode: 'plan',
    fields: { path: inside('src/a.ts') },
    rules: { allow: ['Write(src/**)'] },
    expected: 'deny',
  },
  {
    name: 'ask Write rule in acceptEdits',
    cap: 'fs.write',
    mode: 'acceptEdits',
    fields: { path: inside('package.json') },
    rules: { ask: ['Write(package.json)'] },
    expected: 'ask',
  },
  {
    name: 'unanchored name matches at any depth',
    cap: 'fs.write',
    fields: { path: inside('a/b/package.json') },
    rules: { allow: ['Write(package.json)'] },
    expected: 'allow',
  },
  {
    name: 'anchored pattern does not float',
    cap: 'fs.write',
    fields: { path: inside('x/src/a.ts') },
    rules: { allow: ['Write(src/*.ts)'] },
    expected: 'ask',
  },
  {
    name: './ pattern is anchored at the project',
    cap: 'fs.write',
    fields: { path: inside('docs/a.md') },
    rules: { allow: ['Write(./docs/**)'] },
    expected: 'allow',
  },
  {
    name: '/ pattern is project-anchored too',
    cap: 'fs.write',
    fields: { path: inside('docs/a.md') },
    rules: { allow: ['Write(/docs/**)'] },
    expected: 'allow',
  },
  {
    name: '// pattern is absolute',
    cap: 'fs.write',
    fields: { path: inside('docs/a.md') },
    rules: { allow: [`Write(/${P}/docs/**)`] },
    expected: 'allow',
  },
  {
    name: 'a directory pattern covers its content',
    cap: 'fs.write',
    fields: { path: inside('docs/x/y.md') },
    rules: { allow: ['Write(docs)'] },
    expected: 'allow',
  },
  {
    name: 'brace alternatives',
    cap: 'fs.write',
    fields: { path: inside('src/a.tsx') },
    rules: { allow: ['Write(src/**/*.{ts,tsx})'] },
    expected: 'allow',
  },
];

describe('decide: rules', () => {
  it.each(RULE_TABLE.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const input = {
      ...(CALLS[row.cap] as PolicyInput),
      ...row.fields,
      mode: row.mode ?? 'default',
      rules: row.rules,
    };
    const result = decide(input);
    expect(result.decision).toBe(row.expected);
    if (row.reason) expect(result.reason).toContain(row.reason);
  });
});

describe('rules changed in place', () => {
  // The policy keeps parsed rule lists; a list whose entries change in place must be parsed again.
  it('judges by the rules as they are now, for pushed strings and rewritten { rule, origin } entries', () => {
    const entry = { rule: 'Bash(ls:*)', origin: '/p/.cadre/config.json' };
    const deny: (string | typeof entry)[] = [entry];
    const input: PolicyInput = {
      ...call('exec.run', { command: 'rm -r x' }),
      mode: 'bypassPermissions',
      rules: { deny },
    };
    expect(decide(input).decision).toBe('allow');
    entry.rule = 'Bash(rm:*)';
    expect(decide(input)).toMatchObject({ decision: 'deny', rule: 'Bash(rm:*)' });
    entry.rule = 'Bash(ls:*)';
    expect(decide(input).decision).toBe('allow');
    deny.push('Bash(rm -r:*)');
    expect(decide(input)).toMatchObject({ decision: 'deny', rule: 'Bash(rm -r:*)' });
  });
});
