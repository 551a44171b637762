// The Claude Code agent file corpus (test/fixtures/agents/claude-code): one test per shape found in
// public collections and projects' own `.claude/agents/` folders.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_CODE_ONLY_TOOLS } from '../../../src/shared/claude-code-tools.js';
import { parseAgentFile } from '../../../src/host/registry/parse-agent.js';
import { loadRegistry } from '../../../src/host/registry/load-registry.js';
import { FIXTURES, tempDir } from './temp-dirs.js';

const CORPUS = path.join(FIXTURES, 'claude-code');

async function parse(rel: string) {
  const file = path.join(CORPUS, rel);
  return { file, result: parseAgentFile(file, await readFile(file, 'utf8')) };
}

describe('line endings and byte order marks', () => {
  it('CRLF: the last field keeps no \\r (model sonnet, color blue)', async () => {
    const { file, result } = await parse('files/crlf.md');
    expect((await readFile(file, 'latin1')).includes('\r\n')).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.agent).toMatchObject({
      name: 'windows-reviewer',
      model: 'sonnet',
      color: 'blue',
      tools: ['Read', 'Glob', 'Grep'],
      prompt: 'You review code and report findings as `file:line`.',
    });
  });

  it('a BOM before the opening fence', async () => {
    const { file, result } = await parse('files/bom.md');
    expect((await readFile(file)).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(result.errors).toEqual([]);
    expect(result.agent).toMatchObject({
      name: 'bom-writer',
      model: 'haiku',
      tools: ['Read', 'Write', 'Edit'],
    });
  });

  it('a BOM and CRLF together, with a YAML list of tools', async () => {
    const { result } = await parse('files/bom-crlf.md');
    expect(result.errors).toEqual([]);
    expect(result.agent).toMatchObject({ name: 'bom-crlf-planner', model: 'opus', tools: ['Read', 'Glob'] });
    expect(result.agent?.prompt).toBe('You plan changes.');
  });

  it('a long run of dashes closes the front matter, as Claude Code reads it', async () => {
    const { result } = await parse('files/long-dashes.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.tools).toEqual(['Read', 'Grep']);
    expect(result.agent?.prompt).toMatch(/^# Long dashes\n\nYou search\.$/);
  });
});

describe('the quote retry', () => {
  it('reads a generated description holding ": " with a warning, and every other field as written', async () => {
    const { result } = await parse('files/quote-retry.md');
    expect(result.errors).toEqual([]);
    expect(result.agent).toMatchObject({
      name: 'code-explainer',
      tools: ['Read', 'Glob', 'Grep'],
      model: 'sonnet',
      color: 'cyan',
    });
    expect(result.agent?.description).toMatch(/^Use this agent when .* user: "What does parse_config do\?"/);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        line: 3,
        message: expect.stringMatching(
          /front matter is not valid YAML \(.*\); read as Claude Code reads it, with the value of description quoted/,
        ),
      }),
    ]);
  });

  it('reads pasted example lines as repeated metadata keys, the last standing', async () => {
    const { result } = await parse('files/quote-retry-examples.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.name).toBe('ui-designer');
    expect(result.agent?.tools).toEqual(['Read', 'Write', 'Edit', 'WebFetch', 'WebSearch']);
    expect(result.agent?.description).toMatch(/Starting a new feature$/);
    expect(result.warnings.map((w) => w.field ?? w.message.slice(0, 26))).toEqual([
      'front matter is not valid ',
      'user',
    ]);
  });

  it('refuses a file whose retry would find a security-relevant field twice', async () => {
    const { result } = await parse('files/retry-duplicate-tools.md');
    expect(result.agent).toBeUndefined();
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/invalid YAML: .*"tools" would not be what a strict reading gives/),
      }),
    ]);
  });

  it('refuses a file whose retry would find the name twice', async () => {
    const { result } = await parse('files/retry-duplicate-name.md');
    expect(result.agent).toBeUndefined();
    expect(result.errors[0]?.message).toMatch(/"name" appears twice, so the file is refused/);
  });
});

describe('Claude Code tool names', () => {
  it('maps MultiEdit, Agent(...) and mcp__server; warns for each tool cadre lacks; keeps the rest', async () => {
    const { result } = await parse('files/every-claude-code-tool.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.tools).toEqual([
      'Read',
      'Write',
      'Edit',
      'Glob',
      'Grep',
      'LS',
      'Bash',
      'Task',
      'TaskOutput',
      'TaskStop',
      'TodoWrite',
      'TodoRead',
      'WebFetch',
      'WebSearch',
      'mcp__github__*',
      'mcp__jira__create_issue',
    ]);
    expect(result.agent?.taskTypes).toEqual(['explore', 'plan']);
    const ignored = result.warnings.map(
      (w) => /^ignored: (\w+) is a Claude Code tool cadre does not provide$/.exec(w.message)?.[1],
    );
    expect(ignored.sort()).toEqual([...CLAUDE_CODE_ONLY_TOOLS].sort());
    for (const w of result.warnings) expect(w).toMatchObject({ field: 'tools', line: 4 });
  });

  it('an agent left with only tools cadre lacks is refused, naming them', async () => {
    const { result } = await parse('files/only-claude-code-tools.md');
    expect(result.agent).toBeUndefined();
    expect(result.errors).toEqual([
      expect.objectContaining({
        field: 'tools',
        message:
          'leaves the agent with no tools (cadre does not provide NotebookEdit, NotebookRead); an agent needs at least one',
      }),
    ]);
  });

  it('Agent(a, b) limits Task to those types; a disallowed MultiEdit removes Edit (never more than asked)', async () => {
    const { result } = await parse('files/agent-tool.md');
    expect(result.errors).toEqual([]);
    expect(result.agent).toMatchObject({
      tools: ['Read', 'Task'],
      taskTypes: ['explore', 'plan'],
      disallowedTools: ['Edit'],
    });
  });

  it('a name that is a tool nowhere is an error whose hint never widens', () => {
    const result = parseAgentFile('/x/t.md', '---\nname: t\ndescription: d\ntools: Read, WebSerch\n---\n');
    expect(result.agent).toBeUndefined();
    expect(result.errors.map((e) => e.message)).toEqual([
      'unknown tool "WebSerch" (did you mean "WebSearch"?)',
    ]);
    const notebook = parseAgentFile('/x/n.md', '---\nname: n\ndescription: d\ntools: NoteboookEdit\n---\n');
    expect(notebook.errors[0]?.message).toBe('unknown tool "NoteboookEdit" (did you mean "NotebookEdit"?)');
    // One character from "*" (every tool): the hint must never name it.
    for (const name of ['x', '+', '**', 'all']) {
      const short = parseAgentFile('/x/s.md', `---\nname: s\ndescription: d\ntools: "${name}"\n---\n`);
      expect(short.agent, name).toBeUndefined();
      expect(short.errors[0]?.message, name).not.toContain('"*"');
    }
  });
});

describe('keys', () => {
  it('metadata keys far from every known key load with a warning each', async () => {
    const { result } = await parse('files/metadata-keys.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.tools).toEqual(['Read']);
    expect(result.warnings.map((w) => [w.field, w.line, w.message])).toEqual([
      ['author', 5, 'unknown field; ignored'],
      ['version', 6, 'unknown field; ignored'],
      ['category', 7, 'unknown field; ignored'],
      ['tags', 8, 'unknown field; ignored'],
      ['expertise_level', 11, 'unknown field; ignored'],
    ]);
  });

  it('a key that reads like a permission stays an error: the agent never inherits every tool', async () => {
    const { result } = await parse('files/permission-like-key.md');
    expect(result.agent).toBeUndefined();
    expect(result.errors).toEqual([
      expect.objectContaining({
        field: 'tools_allowed',
        message: expect.stringMatching(/reads like a permission/),
      }),
    ]);
  });

  it('a key close to a known key stays an error with the hint', async () => {
    const { result } = await parse('files/near-key.md');
    expect(result.agent).toBeUndefined();
    expect(result.errors).toEqual([
      expect.objectContaining({ field: 'Tools', line: 4, message: 'unknown field (did you mean "tools"?)' }),
    ]);
    for (const key of ['allowed-tools', 'allowedTools', 'disallowed_tools', 'permissions', 'mode', 'modle'])
      expect(
        parseAgentFile('/x/k.md', `---\nname: k\ndescription: d\n${key}: x\n---\n`).agent,
        key,
      ).toBeUndefined();
  });

  it('isolation and output load with a not-in-effect warning each', async () => {
    const { result } = await parse('files/isolation-output.md');
    expect(result.errors).toEqual([]);
    expect(result.agent).toMatchObject({ isolation: 'worktree', output: 'handoff' });
    expect(result.warnings.map((w) => [w.field, w.message])).toEqual([
      [
        'isolation',
        expect.stringMatching(/^worktree: not in effect: cadre does not run agents in a git worktree/),
      ],
      ['output', expect.stringMatching(/^handoff: not in effect: structured output is not built yet/)],
    ]);
  });
});

describe('names', () => {
  it.each([
    ['names/powershell-5.1-expert.md', 'powershell-5.1-expert'],
    ['names/Data_Scientist.md', 'Data_Scientist'],
  ])('%s loads, its name as written', async (rel, name) => {
    const { result } = await parse(rel);
    expect(result.errors).toEqual([]);
    expect(result.agent?.name).toBe(name);
  });

  it.each(['bad-space', 'bad-colon', 'bad-slash', 'bad-backslash', 'bad-leading-dash'])(
    'names/%s.md is refused, naming the field',
    async (base) => {
      const { result } = await parse(`names/${base}.md`);
      expect(result.agent).toBeUndefined();
      expect(result.errors).toEqual([
        expect.objectContaining({ field: 'name', line: 2, message: expect.stringMatching(/no spaces, ":"/) }),
      ]);
    },
  );
});

describe('files that are not agents', () => {
  it.each([
    ['skipped/README.md', 'no front matter'],
    ['skipped/empty.md', 'empty file'],
  ])('%s is skipped with a warning, not an error', async (rel, what) => {
    const { file, result } = await parse(rel);
    expect(result).toEqual({
      errors: [],
      warnings: [
        {
          path: file,
          line: 1,
          message: expect.stringMatching(new RegExp(`^${what}: not an agent definition, skipped`)),
        },
      ],
    });
  });
});

describe('nested folders', () => {
  it('finds agents in subfolders, skips READMEs and hidden folders, and applies the duplicate rule across folders', async () => {
    const { dir: home, cleanup } = await tempDir();
    try {
      const result = await loadRegistry({
        cwd: path.join(CORPUS, 'project'),
        home,
        builtinDir: path.join(home, 'no-builtins'),
      });
      expect(result.agents.map((a) => [a.name, a.source, a.relativePath])).toEqual([
        ['api-designer', 'project-claude', 'backend/api-designer.md'],
        ['Component-Builder', 'project-claude', 'frontend/ui/component-builder.md'],
        ['migration-writer', 'project-claude', 'backend/db/migration-writer.md'],
        ['reviewer', 'project-claude', 'reviewer.md'],
      ]);
      const errors = result.errors.filter((e) => !e.message.startsWith('no built-in agents'));
      expect(errors).toEqual([
        expect.objectContaining({
          path: path.join(CORPUS, 'project/.claude/agents/legacy/api-designer.md'),
          field: 'name',
          message: expect.stringMatching(
            /duplicate agent name "API-Designer": .*backend\/api-designer\.md defines it too/,
          ),
        }),
      ]);
      expect(result.warnings.map((w) => path.relative(CORPUS, w.path))).toEqual([
        'project/.claude/agents/README.md',
        'project/.claude/agents/frontend/README.md',
      ]);
    } finally {
      await cleanup();
    }
  });
});
