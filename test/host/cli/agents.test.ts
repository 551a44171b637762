// Runs the compiled `cadre` binary against real temporary projects and a temporary HOME.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentFile, copyFixture, tempDir, writeFiles } from '../registry/temp-dirs.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = path.join(ROOT, 'dist/host/cli/cadre.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let project: string;
let home: string;
const cleanups: (() => Promise<void>)[] = [];

function cadre(args: string[], options: { cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, COLUMNS: '200' };
    delete env.CADRE_DEBUG;
    execFile(
      process.execPath,
      [MAIN, ...args],
      { cwd: options.cwd ?? project, env },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(() => {
  // `npm test` builds first; a bare `vitest run` on a fresh clone builds here once.
  if (!existsSync(MAIN)) spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  expect(existsSync(MAIN)).toBe(true);
}, 120_000);

beforeEach(async () => {
  const made = await Promise.all([tempDir('cadre-cli-project-'), tempDir('cadre-cli-home-')]);
  [project, home] = made.map((m) => m.dir) as [string, string];
  cleanups.push(...made.map((m) => m.cleanup));
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const noStack = (run: Run) => expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('cadre agents list', () => {
  it('prints a table of the built-ins and the project agents', async () => {
    await writeFiles(project, {
      '.cadre/agents/tester.md': agentFile('tester', 'Runs the tests', 'tools: Bash, Read\nmodel: haiku\n'),
    });
    const run = await cadre(['agents', 'list']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SOURCE\s+PATH\s+MODEL\s+TOOLS\s+DESCRIPTION$/);
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual([
      'NAME',
      'bash',
      'code-reviewer',
      'explore',
      'general-purpose',
      'main',
      'plan',
      'tester',
    ]);
    expect(run.stdout).toMatch(/tester\s+project\s+tester\.md\s+haiku\s+Read, Bash\s+Runs the tests/);
    expect(run.stdout).toMatch(/general-purpose\s+builtin\s+general-purpose\.md\s+inherit\s+all\s/);
  });

  it('--json: one object per agent with name, description, source, path, tools and model', async () => {
    const run = await cadre(['agents', 'list', '--json']);
    expect(run.code).toBe(0);
    const agents = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(agents).toHaveLength(6);
    for (const agent of agents) {
      expect(Object.keys(agent)).toEqual(
        expect.arrayContaining(['name', 'description', 'source', 'path', 'tools', 'model', 'overrides']),
      );
      expect(agent.prompt).toBeUndefined();
    }
    // The compiled module finds the package's agents/ directory.
    expect(agents.find((a) => a.name === 'explore')).toMatchObject({
      source: 'builtin',
      path: path.join(ROOT, 'agents', 'explore.md'),
      tools: ['Read', 'Glob', 'Grep', 'LS'],
      model: 'haiku',
    });
  });

  it('shows the seed 000 precedence scenario with sources', async () => {
    await copyFixture('precedence/user', path.join(home, '.cadre'));
    await copyFixture('precedence/project', path.join(project, '.cadre'));
    const run = await cadre(['agents', 'list', '--json']);
    const sources = Object.fromEntries(
      (JSON.parse(run.stdout) as { name: string; source: string }[]).map((a) => [a.name, a.source]),
    );
    expect(sources).toMatchObject({
      personal: 'user',
      helper: 'user-config',
      'code-reviewer': 'project',
      debugger: 'project-config',
    });
  });

  it('--cwd chooses the project (relative to the current directory) and --agents adds inline agents', async () => {
    await writeFiles(project, {
      'sub/.claude/agents/claude-one.md': agentFile('claude-one', 'from .claude'),
    });
    const run = await cadre([
      '--cwd',
      'sub',
      'agents',
      'list',
      '--json',
      '--agents',
      '{"inline-one": {"description": "inline", "prompt": "p"}}',
    ]);
    expect(run.code).toBe(0);
    const sources = Object.fromEntries(
      (JSON.parse(run.stdout) as { name: string; source: string }[]).map((a) => [a.name, a.source]),
    );
    expect(sources).toMatchObject({ 'claude-one': 'project-claude', 'inline-one': 'cli' });
  });

  it('still lists the good agents when some are broken, with the errors on stderr', async () => {
    await writeFiles(project, {
      '.cadre/agents/broken.md': '---\nname: broken\ndescription: d\nallowed-tools: Read\n---\nBody\n',
      '.cadre/agents/fine.md': agentFile('fine', 'ok'),
    });
    const run = await cadre(['agents', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^fine\s+project/m);
    expect(run.stdout).not.toMatch(/^broken/m);
    expect(run.stderr).toContain(
      `error: ${path.join(project, '.cadre/agents/broken.md')}:4: allowed-tools: unknown field (did you mean "tools"?)`,
    );
    expect(run.stderr).toContain(
      'cadre: 1 error, 0 warnings in agent definitions (details: cadre agents validate)',
    );
    noStack(run);
  });
});

describe('cadre agents list: Claude Code projects', () => {
  it('lists agents from subfolders with their path, a collection README skipped with a warning', async () => {
    await copyFixture('claude-code/project/.claude', path.join(project, '.claude'));
    const run = await cadre(['agents', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^api-designer\s+project-claude\s+backend\/api-designer\.md\s+sonnet\s/m);
    expect(run.stdout).toMatch(/^migration-writer\s+project-claude\s+backend\/db\/migration-writer\.md\s/m);
    expect(run.stdout).toMatch(
      /^Component-Builder\s+project-claude\s+frontend\/ui\/component-builder\.md\s/m,
    );
    expect(run.stdout).not.toContain('archived');
    expect(run.stderr).toContain('duplicate agent name "API-Designer"');
    expect(run.stderr).toContain('cadre: 1 error, 2 warnings in agent definitions');
    const json = JSON.parse((await cadre(['agents', 'list', '--json'])).stdout) as Record<string, unknown>[];
    const builder = json.find((a) => a.name === 'Component-Builder');
    expect(builder).toMatchObject({
      relativePath: 'frontend/ui/component-builder.md',
      source: 'project-claude',
    });
    expect(builder).not.toHaveProperty('prompt');
  });

  it('keeps parsed definitions in the user cache directory, and a second start reads them', async () => {
    await writeFiles(project, {
      '.claude/agents/a.md': agentFile('a', 'first'),
    });
    await cadre(['agents', 'list']);
    const cacheDir = path.join(home, '.cache', 'cadre');
    expect(existsSync(cacheDir)).toBe(true);
    const again = await cadre(['agents', 'show', 'A', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'a', description: 'first', prompt: 'You are a.' });
  });
});

describe('cadre agents show', () => {
  it('prints the resolved definition, its source and what it overrides', async () => {
    await writeFiles(project, {
      '.cadre/agents/explore.md': agentFile(
        'explore',
        'Project explorer',
        'tools: Read, Task(plan)\nmaxTurns: 7\n',
      ),
    });
    const run = await cadre(['agents', 'show', 'explore']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`source:       project (${path.join(project, '.cadre/agents/explore.md')})`);
    expect(run.stdout).toContain(`overrides:    builtin (${path.join(ROOT, 'agents/explore.md')})`);
    expect(run.stdout).toMatch(/tools:\s+Read, Task\n/);
    expect(run.stdout).toMatch(/task types:\s+plan\n/);
    expect(run.stdout).toMatch(/max turns:\s+7\n/);
    expect(run.stdout).toMatch(/timeout:\s+300 s \(idle 120 s\)/);
    expect(run.stdout).toMatch(/--- prompt ---\nYou are explore\.\n$/);
  });

  it('marks what is not in effect: an MCP tool with no server, isolation, output', async () => {
    await writeFiles(project, {
      '.claude/agents/gh.md': agentFile(
        'gh',
        'Works on GitHub issues',
        'tools: Read, mcp__github, mcp__jira__create_issue\nisolation: worktree\noutput: handoff\n',
      ),
    });
    const run = await cadre(['agents', 'show', 'gh']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /tools:\s+Read, mcp__github__\* \(not in effect\), mcp__jira__create_issue \(not in effect\)\n/,
    );
    expect(run.stdout).toMatch(/output:\s+handoff \(not in effect\)\n/);
    expect(run.stdout).toMatch(/isolation:\s+worktree \(not in effect\)\n/);
    expect(run.stdout).toMatch(
      /not in effect: isolation: worktree: cadre does not run agents in a git worktree/,
    );
    expect(run.stdout).toMatch(/\n {16}mcp__github__\*: no MCP server "github" is configured/);
    const validate = await cadre(['agents', 'validate']);
    expect(validate.code).toBe(0);
    const file = path.join(project, '.claude/agents/gh.md');
    expect(validate.stdout).toContain(
      `warning: ${file}: tools: no MCP server "github" is configured (add it to .mcp.json`,
    );
    expect(validate.stdout).toContain(`warning: ${file}: tools: no MCP server "jira" is configured`);
    expect(validate.stdout).toContain(`warning: ${file}:5: isolation: worktree: not in effect:`);
    expect(validate.stdout).toMatch(/7 agents loaded, 0 errors, 4 warnings\n$/);
  });

  it('--json prints the whole definition', async () => {
    const run = await cadre(['agents', 'show', 'bash', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      name: 'bash',
      tools: ['Bash'],
      source: 'builtin',
      overrides: [],
      prompt: expect.stringContaining('command'),
    });
  });

  it('an unknown name lists the available agents and exits 1', async () => {
    const run = await cadre(['agents', 'show', 'explor']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'cadre: unknown agent "explor" (did you mean "explore"?)\navailable agents: bash, code-reviewer, explore, general-purpose, main, plan\n',
    );
  });
});

describe('cadre agents validate', () => {
  it('reports every error and warning of all sources and exits 1', async () => {
    await writeFiles(project, {
      '.cadre/agents/bad.md': '---\nname: bad\ndescription: d\ntools: Read, Grpe\n---\nBody\n',
      '.claude/agents/old.md': '---\nname: old\ndescription: d\ntools: Read\nskills: [x]\n---\nBody\n',
      '.cadre/config.json': '{"concurency": 2}',
    });
    const run = await cadre(['agents', 'validate']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `error: ${path.join(project, '.cadre/config.json')}:1: concurency: unknown key "concurency" (did you mean "concurrency"?)`,
    );
    expect(run.stdout).toContain(
      `error: ${path.join(project, '.cadre/agents/bad.md')}:4: tools: unknown tool "Grpe" (did you mean "Grep"?)`,
    );
    expect(run.stdout).toContain(
      `warning: ${path.join(project, '.claude/agents/old.md')}:5: skills: is a Claude Code field cadre does not implement; ignored`,
    );
    expect(run.stdout).toMatch(/7 agents loaded, 2 errors, 1 warning\n$/);
    noStack(run);
  });

  it('exits 0 when everything is valid', async () => {
    const run = await cadre(['agents', 'validate']);
    expect(run).toEqual({ code: 0, stdout: '6 agents loaded, 0 errors, 0 warnings\n', stderr: '' });
  });

  it('checks only the given files and directories', async () => {
    await writeFiles(project, {
      'drafts/good.md': agentFile('good', 'd'),
      'drafts/empty.md': '',
      'one.md': agentFile('one', 'd'),
    });
    const good = await cadre(['agents', 'validate', 'one.md']);
    expect(good).toMatchObject({ code: 0, stdout: '1 agent loaded, 0 errors, 0 warnings\n' });
    const dir = await cadre(['agents', 'validate', 'drafts', 'missing.md']);
    expect(dir.code).toBe(1);
    expect(dir.stdout).toContain(
      `warning: ${path.join(project, 'drafts/empty.md')}:1: empty file: not an agent definition, skipped`,
    );
    expect(dir.stdout).toContain(`error: ${path.join(project, 'missing.md')}: no such file or directory`);
    expect(dir.stdout).toMatch(/1 agent loaded, 1 error, 1 warning\n$/);
  });

  it('--json prints agents, errors and warnings', async () => {
    await writeFiles(project, { 'x.md': '---js\n{}\n---\n' });
    const run = await cadre(['agents', 'validate', '--json', 'x.md']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      agents: [],
      errors: [
        {
          path: path.join(project, 'x.md'),
          line: 1,
          message: expect.stringMatching(/not supported \(YAML only\)/),
        },
      ],
      warnings: [],
    });
  });
});

describe('usage errors exit 2 with a clear message', () => {
  it.each([
    [['agents', 'list', '--bogus'], /error: unknown option '--bogus'/],
    [['agents', 'lst'], /error: unknown command 'lst'\n\(Did you mean list\?\)/],
    [['frobnicate'], /error: unknown command 'frobnicate'/],
    [['agents', 'show'], /error: missing required argument 'name'/],
    [
      ['--cwd', '/nonexistent/dir', 'agents', 'list'],
      /cadre: --cwd: "\/nonexistent\/dir" is not a directory/,
    ],
    [[], /Usage: cadre/],
  ])('cadre %j', async (args, message) => {
    const run = await cadre(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    noStack(run);
  });

  it('--help and --version exit 0', async () => {
    const help = await cadre(['agents', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/list \[options\]/);
    const version = await cadre(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });
});
