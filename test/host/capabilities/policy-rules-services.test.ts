import { beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  validateRules,
  type PolicyInput,
  loadShellGrammar,
} from '../../../src/host/capabilities/policy.js';
import { CALLS, type Row, inside } from './policy-fixtures.js';

// Commands are read with the bash grammar, loaded once per process.
beforeAll(() => loadShellGrammar());

const RULE_TABLE: Row[] = [
  // Read rules
  {
    name: 'deny Read',
    cap: 'fs.read',
    mode: 'bypassPermissions',
    fields: { path: inside('secrets/a.txt') },
    rules: { deny: ['Read(secrets/**)'] },
    expected: 'deny',
  },
  {
    name: 'deny Read covers glob',
    cap: 'fs.glob',
    fields: { path: inside('secrets'), pattern: '*' },
    rules: { deny: ['Read(secrets/**)'] },
    expected: 'deny',
  },
  {
    name: 'deny Read covers list',
    cap: 'fs.list',
    fields: { path: inside('secrets/x') },
    rules: { deny: ['Read(secrets)'] },
    expected: 'deny',
  },
  {
    name: 'deny Read covers readMany',
    cap: 'fs.readMany',
    fields: { paths: [inside('a.ts'), inside('secrets/b')] },
    rules: { deny: ['Read(secrets/**)'] },
    expected: 'deny',
  },
  {
    name: 'deny Grep covers readMany only',
    cap: 'fs.read',
    fields: { path: inside('vendor/a.js') },
    rules: { deny: ['Grep(vendor/**)'] },
    expected: 'allow',
  },
  {
    name: 'deny Grep',
    cap: 'fs.readMany',
    fields: { paths: [inside('vendor/a.js')] },
    rules: { deny: ['Grep(vendor/**)'] },
    expected: 'deny',
  },
  {
    name: 'ask Read',
    cap: 'fs.read',
    fields: { path: inside('docs/a.md') },
    rules: { ask: ['Read(docs/**)'] },
    expected: 'ask',
  },
  {
    name: 'home-relative rule',
    cap: 'fs.read',
    fields: {
      path: {
        requested: '/home/u/notes/a',
        absolute: '/home/u/notes/a',
        real: '/home/u/notes/a',
        exists: true,
      },
      extraRoots: ['/home/u/notes'],
    },
    rules: { deny: ['Read(~/notes/**)'] },
    expected: 'deny',
  },
  // WebFetch
  {
    name: 'domain allow',
    cap: 'web.fetch',
    fields: { url: 'https://example.com/a?b=c' },
    rules: { allow: ['WebFetch(domain:example.com)'] },
    expected: 'allow',
  },
  {
    name: 'domain is exact',
    cap: 'web.fetch',
    fields: { url: 'https://api.example.com/' },
    rules: { allow: ['WebFetch(domain:example.com)'] },
    expected: 'ask',
  },
  {
    name: 'subdomain wildcard',
    cap: 'web.fetch',
    fields: { url: 'https://api.example.com/' },
    rules: { allow: ['WebFetch(domain:*.example.com)'] },
    expected: 'allow',
  },
  {
    name: 'lookalike domain does not match the wildcard',
    cap: 'web.fetch',
    fields: { url: 'https://evilexample.com/' },
    rules: { allow: ['WebFetch(domain:*.example.com)'] },
    expected: 'ask',
  },
  // A fully qualified name (`evil.com.`) resolves to the same host as `evil.com`: the trailing dot
  // once slipped past every deny rule, in every mode.
  {
    name: 'a domain deny binds the same host written with a trailing dot',
    cap: 'web.fetch',
    mode: 'bypassPermissions',
    fields: { url: 'https://EVIL.com.:443/x' },
    rules: { deny: ['WebFetch(domain:evil.com)'] },
    expected: 'deny',
  },
  {
    name: 'a wildcard deny binds a subdomain written with a trailing dot',
    cap: 'web.fetch',
    mode: 'bypassPermissions',
    fields: { url: 'https://a.evil.com./' },
    rules: { deny: ['WebFetch(domain:*.evil.com)'] },
    expected: 'deny',
  },
  {
    name: 'a rule written with a trailing dot matches the host',
    cap: 'web.fetch',
    fields: { url: 'https://example.com/' },
    rules: { allow: ['WebFetch(domain:example.com.)'] },
    expected: 'allow',
  },
  {
    name: 'bare WebFetch deny',
    cap: 'web.fetch',
    mode: 'bypassPermissions',
    fields: { url: 'https://example.com/' },
    rules: { deny: ['WebFetch'] },
    expected: 'deny',
  },
  {
    name: 'file URLs are refused',
    cap: 'web.fetch',
    mode: 'bypassPermissions',
    fields: { url: 'file:///etc/passwd' },
    rules: { allow: ['WebFetch'] },
    expected: 'deny',
  },
  // MCP
  {
    name: 'server rule',
    cap: 'mcp.call',
    fields: { tool: 'mcp__github__create_issue' },
    rules: { allow: ['mcp__github'] },
    expected: 'allow',
  },
  {
    name: 'server wildcard',
    cap: 'mcp.call',
    fields: { tool: 'mcp__github__create_issue' },
    rules: { allow: ['mcp__github__*'] },
    expected: 'allow',
  },
  {
    name: 'server rule does not match a longer server name',
    cap: 'mcp.call',
    fields: { tool: 'mcp__githubx__a' },
    rules: { allow: ['mcp__github'] },
    expected: 'ask',
  },
  {
    name: 'tool deny beats server allow',
    cap: 'mcp.call',
    fields: { tool: 'mcp__github__delete_repo' },
    rules: { allow: ['mcp__github'], deny: ['mcp__github__delete_repo'] },
    expected: 'deny',
  },
  {
    name: 'plan allows a named MCP tool',
    cap: 'mcp.call',
    mode: 'plan',
    fields: { tool: 'mcp__docs__search' },
    rules: { allow: ['mcp__docs__search'] },
    expected: 'allow',
  },
  // Task and bookkeeping
  {
    name: 'Task type deny',
    cap: 'agents.task',
    fields: { agentType: 'general-purpose' },
    rules: { deny: ['Task(general-purpose)'] },
    expected: 'deny',
  },
  {
    name: 'Task type deny leaves others',
    cap: 'agents.task',
    fields: { agentType: 'explore' },
    rules: { deny: ['Task(general-purpose)'] },
    expected: 'allow',
  },
  {
    name: 'Agent alias',
    cap: 'agents.task',
    fields: { agentType: 'explore' },
    rules: { deny: ['Agent'] },
    expected: 'deny',
  },
  { name: 'TodoWrite deny', cap: 'todos.write', rules: { deny: ['TodoWrite'] }, expected: 'deny' },
  // Malformed rules never match
  {
    name: 'a malformed deny rule is ignored',
    cap: 'exec.run',
    mode: 'bypassPermissions',
    fields: { command: 'ls' },
    rules: { deny: ['Bash(ls'] },
    expected: 'allow',
  },
];

describe('decide: rules for reads and services', () => {
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

  it('names the rule and the file it came from', () => {
    const rules = { deny: [{ rule: 'Bash(rm:*)', origin: '/work/proj/.cadre/config.json' }] };
    const result = decide({
      ...(CALLS['exec.run'] as PolicyInput),
      command: 'rm -rf dist',
      mode: 'default',
      rules,
    });
    expect(result).toMatchObject({
      decision: 'deny',
      rule: 'Bash(rm:*)',
      origin: '/work/proj/.cadre/config.json',
      code: 'permission_denied',
    });
    expect(result.reason).toContain('matches deny rule "Bash(rm:*)" in /work/proj/.cadre/config.json');
  });

  it('sees a rule added to a list it has already judged with', () => {
    const allow = ['Bash(git status:*)'];
    const rules = { allow };
    const input = {
      ...(CALLS['exec.run'] as PolicyInput),
      command: 'npm test',
      mode: 'default' as const,
      rules,
    };
    expect(decide(input).decision).toBe('ask');
    allow.push('Bash(npm test:*)');
    expect(decide(input).decision).toBe('allow');
  });

  it('accepts the same rules object many times (memoised parsing)', () => {
    const rules = { allow: ['Bash(git status:*)'] };
    for (let i = 0; i < 3; i++) {
      expect(
        decide({ ...(CALLS['exec.run'] as PolicyInput), command: 'git status', mode: 'default', rules })
          .decision,
      ).toBe('allow');
    }
  });
});

describe('validateRules', () => {
  it('reports malformed rules with their list, origin and a hint', () => {
    const problems = validateRules({
      allow: ['Bash(git status:*)', 'Bsh(ls)', { rule: 'Bash(ls', origin: '/p/.cadre/config.json' }],
      deny: ['Bash(rm:* -rf)', 'WebFetch(example.com)', 'NotebookRead', 'Read()'],
      ask: ['mcp__bad name'],
    });
    expect(problems).toHaveLength(7);
    expect(problems[0]).toContain('did you mean "Bash"');
    expect(problems[1]).toMatch(/^\/p\/\.cadre\/config\.json: permissions\.allow:/);
    expect(problems.join('\n')).toContain('":*" may only end the command prefix');
    expect(problems.join('\n')).toContain('WebFetch(domain:example.com)');
    expect(problems.join('\n')).toContain('cadre does not have');
  });

  it('accepts every documented shape', () => {
    expect(
      validateRules({
        allow: [
          'Bash',
          'Bash(git status:*)',
          'Bash(npm run test:*)',
          'Write(src/**)',
          'Read(**/.env)',
          'Edit(//abs/**)',
          'WebFetch(domain:example.com)',
          'mcp__github',
          'mcp__github__*',
          'Task(explore, plan)',
          'Task(powershell-5.1-expert, Data_Scientist)',
          'Agent(explore)',
          'MultiEdit',
          'TodoWrite',
          'WebSearch',
        ],
      }),
    ).toEqual([]);
    expect(validateRules({ deny: ['WebSearch(domain:x.com)'] })[0]).toMatch(
      /WebSearch rules take no specifier/,
    );
  });
});
