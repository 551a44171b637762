// Precedence over parsed candidates, with no disk: the highest valid definition wins and lists what
// it hides, a broken one hides nothing, duplicates within a source are errors, names differing
// only in case are one agent; plus the directory list and the name warnings.
import { describe, expect, it } from 'vitest';
import type { AgentSource } from '../../../src/shared/agent-definition.js';
import { agentDirs } from '../../../src/host/registry/agent-sources.js';
import { nameWarnings } from '../../../src/host/registry/load-registry.js';
import { parseAgentEntry } from '../../../src/host/registry/parse-agent.js';
import { dropDuplicates, resolvePrecedence, type Candidate } from '../../../src/host/registry/precedence.js';

function candidate(source: AgentSource, name: string, entry: Record<string, unknown> = {}): Candidate {
  const where = `/${source}/${name}.json`;
  const parsed = parseAgentEntry(
    name,
    { description: `${name} from ${source}`, prompt: 'p', ...entry },
    where,
  );
  return { source, path: where, parsed };
}

describe('resolvePrecedence', () => {
  it('takes the highest source, sorted by name, recording what each winner hides', () => {
    const bySource = new Map<AgentSource, Candidate[]>([
      ['builtin', [candidate('builtin', 'scout'), candidate('builtin', 'alpha')]],
      ['project', [candidate('project', 'scout')]],
      ['user', [candidate('user', 'Scout')]],
    ]);
    const { agents, errors, warnings } = resolvePrecedence(bySource);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(agents.map((a) => [a.name, a.source])).toEqual([
      ['alpha', 'builtin'],
      ['scout', 'project'],
    ]);
    expect(agents[1]?.overrides).toEqual([
      { source: 'user', path: '/user/Scout.json' },
      { source: 'builtin', path: '/builtin/scout.json' },
    ]);
  });

  it('lets a broken definition hide nothing, warning that a lower one is in effect', () => {
    const broken = candidate('project', 'scout', { timeout: -1 });
    expect(broken.parsed.agent).toBeUndefined();
    const { agents, errors, warnings } = resolvePrecedence(
      new Map<AgentSource, Candidate[]>([
        ['project', [broken]],
        ['builtin', [candidate('builtin', 'scout')]],
      ]),
    );
    expect(agents.map((a) => a.source)).toEqual(['builtin']);
    expect(agents[0]?.overrides).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.path === broken.path)).toBe(true);
    expect(warnings).toEqual([
      {
        path: broken.path,
        message:
          '"scout" failed to load here, so the lower-precedence builtin definition (/builtin/scout.json) is in effect',
      },
    ]);
  });

  it('does not warn when the broken definition was the lower one', () => {
    const { warnings } = resolvePrecedence(
      new Map<AgentSource, Candidate[]>([
        ['project', [candidate('project', 'scout')]],
        ['builtin', [candidate('builtin', 'scout', { timeout: -1 })]],
      ]),
    );
    expect(warnings).toEqual([]);
  });
});

describe('dropDuplicates', () => {
  it('keeps the first of a name in any case and reports the others', () => {
    const errors: { path: string; field?: string; message: string }[] = [];
    const kept = dropDuplicates(
      [candidate('project', 'scout'), candidate('project', 'SCOUT'), candidate('project', 'other')],
      errors,
    );
    expect(kept.map((c) => c.parsed.agent?.name)).toEqual(['scout', 'other']);
    expect(errors).toEqual([
      {
        path: '/project/SCOUT.json',
        field: 'name',
        message:
          'duplicate agent name "SCOUT": /project/scout.json defines it too; that file is used and this one is ignored',
      },
    ]);
  });
});

describe('agentDirs', () => {
  it('lists the project, user and built-in directories, highest first', () => {
    expect(agentDirs({ cwd: '/p', home: '/h', builtinDir: '/b' })).toEqual([
      ['project', '/p/.cadre/agents'],
      ['project-claude', '/p/.claude/agents'],
      ['user', '/h/.cadre/agents'],
      ['user-claude', '/h/.claude/agents'],
      ['builtin', '/b'],
    ]);
  });

  it('reads the user level once when the project is the home directory', () => {
    expect(agentDirs({ cwd: '/h/', home: '/h', builtinDir: '/b' }).map(([s]) => s)).toEqual([
      'project',
      'project-claude',
      'builtin',
    ]);
  });
});

describe('nameWarnings', () => {
  it('names Task types no agent defines, with a hint, and unconfigured MCP servers', () => {
    const { agents } = resolvePrecedence(
      new Map<AgentSource, Candidate[]>([
        [
          'project',
          [
            candidate('project', 'lead', { tools: ['Task(scuot)', 'Task(helper)', 'mcp__github__search'] }),
            candidate('project', 'scout'),
            candidate('project', 'helper'),
          ],
        ],
      ]),
    );
    const warnings = nameWarnings(agents, {});
    expect(warnings.map((w) => [w.path, w.field, w.message.slice(0, 60)])).toEqual([
      ['/project/lead.json', 'tools', 'Task(scuot): no agent named "scuot" is defined (did you mean'],
      ['/project/lead.json', 'tools', 'no MCP server "github" is configured (add it to .mcp.json or'],
    ]);
    expect(warnings[0]?.message).toContain('"scout"');
  });
});
