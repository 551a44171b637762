import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSource } from '../../../src/shared/agent-definition.js';
import { BUILTIN_AGENTS_DIR } from '../../../src/host/registry/agent-sources.js';
import { loadRegistry } from '../../../src/host/registry/load-registry.js';
import { SOURCE_ORDER } from '../../../src/host/registry/precedence.js';
import { agentFile, copyFixture, tempDir, writeFiles } from './temp-dirs.js';

let project: string;
let home: string;
let builtin: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  const made = await Promise.all([
    tempDir('cadre-project-'),
    tempDir('cadre-home-'),
    tempDir('cadre-builtin-'),
  ]);
  [project, home, builtin] = made.map((m) => m.dir) as [string, string, string];
  cleanups.push(...made.map((m) => m.cleanup));
  await writeFiles(builtin, { 'general-purpose.md': agentFile('general-purpose', 'built-in') });
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const load = (extra: { cliAgents?: string } = {}) =>
  loadRegistry({ cwd: project, home, builtinDir: builtin, ...extra });

describe('precedence', () => {
  it('seed 000: personal, helper, code-reviewer and debugger v1/v2/v3', async () => {
    await copyFixture('precedence/user', path.join(home, '.cadre'));
    await copyFixture('precedence/project', path.join(project, '.cadre'));
    const result = await load();
    expect(result.errors).toEqual([]);
    const byName = Object.fromEntries(result.agents.map((a) => [a.name, a]));
    expect(Object.keys(byName)).toEqual([
      'code-reviewer',
      'debugger',
      'general-purpose',
      'helper',
      'personal',
    ]);
    expect(byName.personal).toMatchObject({
      source: 'user',
      path: path.join(home, '.cadre/agents/personal.md'),
    });
    expect(byName.helper).toMatchObject({
      source: 'user-config',
      path: path.join(home, '.cadre/config.json'),
      model: 'haiku',
      prompt: 'You help.',
    });
    expect(byName['code-reviewer']).toMatchObject({ source: 'project', model: 'sonnet' });
    expect(byName.debugger).toMatchObject({
      source: 'project-config',
      description: 'debugger v3 (project config.json)',
      tools: ['Read', 'Edit', 'Grep', 'Bash'],
      overrides: [
        { source: 'project', path: path.join(project, '.cadre/agents/debugger.md') },
        { source: 'user', path: path.join(home, '.cadre/agents/debugger.md') },
      ],
    });
  });

  // Puts an agent named "probe" at every level from `from` down, then checks the highest one wins.
  async function probeAt(levels: readonly AgentSource[]): Promise<string | undefined> {
    const cliFile = path.join(project, 'cli-agents.json');
    let cliAgents: string | undefined;
    for (const level of levels) {
      const description = `probe from ${level}`;
      const entry = JSON.stringify({ agents: { probe: { description, prompt: 'p' } } });
      if (level === 'project-config') await writeFiles(project, { '.cadre/config.json': entry });
      if (level === 'project')
        await writeFiles(project, { '.cadre/agents/probe.md': agentFile('probe', description) });
      if (level === 'project-claude')
        await writeFiles(project, { '.claude/agents/probe.md': agentFile('probe', description) });
      if (level === 'cli') {
        await writeFiles(project, {
          'cli-agents.json': JSON.stringify({ probe: { description, prompt: 'p' } }),
        });
        cliAgents = cliFile;
      }
      if (level === 'user-config') await writeFiles(home, { '.cadre/config.json': entry });
      if (level === 'user')
        await writeFiles(home, { '.cadre/agents/probe.md': agentFile('probe', description) });
      if (level === 'user-claude')
        await writeFiles(home, { '.claude/agents/probe.md': agentFile('probe', description) });
      if (level === 'builtin') await writeFiles(builtin, { 'probe.md': agentFile('probe', description) });
    }
    return cliAgents;
  }

  it.each(SOURCE_ORDER.map((source, i) => [source, i] as const))(
    '%s wins over every level below it',
    async (source, i) => {
      const levels = SOURCE_ORDER.slice(i);
      const cliAgents = await probeAt(levels);
      const result = await load(cliAgents === undefined ? {} : { cliAgents });
      expect(result.errors).toEqual([]);
      const probe = result.agents.find((a) => a.name === 'probe');
      expect(probe?.source).toBe(source);
      expect(probe?.description).toBe(`probe from ${source}`);
      expect(probe?.overrides.map((o) => o.source)).toEqual(levels.slice(1));
    },
  );

  it('SOURCE_ORDER is the documented order', () => {
    expect(SOURCE_ORDER).toEqual([
      'project-config',
      'project',
      'project-claude',
      'cli',
      'user-config',
      'user',
      'user-claude',
      'builtin',
    ]);
  });

  it('when a higher definition is broken, the lower one applies and a warning says so', async () => {
    await writeFiles(project, {
      '.cadre/agents/probe.md': '---\nname: probe\ndescription: broken\ntools: Raed\n---\nPrompt.\n',
    });
    await writeFiles(home, { '.cadre/agents/probe.md': agentFile('probe', 'user probe') });
    const result = await load();
    expect(result.errors).toEqual([
      expect.objectContaining({ path: path.join(project, '.cadre/agents/probe.md'), field: 'tools' }),
    ]);
    expect(result.agents.find((a) => a.name === 'probe')?.source).toBe('user');
    expect(result.warnings).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/failed to load here, so the lower-precedence user definition/),
      }),
    ]);
  });
  it('a broken lower definition is reported but not listed as overridden', async () => {
    await writeFiles(project, { '.cadre/agents/probe.md': agentFile('probe', 'project probe') });
    await writeFiles(home, {
      '.cadre/agents/probe.md': '---\nname: probe\ndescription: d\ntools: Nope\n---\nBody\n',
    });
    const result = await load();
    expect(result.errors).toHaveLength(1);
    expect(result.warnings).toEqual([]);
    expect(result.agents.find((a) => a.name === 'probe')?.overrides).toEqual([]);
  });
});

describe('sources', () => {
  it('loads inline --agents JSON with source cli and path --agents', async () => {
    const result = await load({
      cliAgents: '{"reviewer": {"description": "inline", "prompt": "Review.", "tools": "Read"}}',
    });
    expect(result.agents.find((a) => a.name === 'reviewer')).toMatchObject({
      source: 'cli',
      path: '--agents',
      tools: ['Read'],
    });
  });

  it('reports bad --agents values clearly', async () => {
    expect((await load({ cliAgents: '{"a": ' })).errors[0]).toMatchObject({
      path: '--agents',
      message: expect.stringMatching(/invalid JSON.*line 1, column 7/),
    });
    expect((await load({ cliAgents: 'missing.json' })).errors[0]).toMatchObject({
      path: path.join(project, 'missing.json'),
      message: expect.stringMatching(/cannot read the file \(ENOENT\)/),
    });
    expect(
      (await load({ cliAgents: '{"a": {"description": "d", "tool": "Read"}}' })).errors[0],
    ).toMatchObject({ path: '--agents', field: 'a.tool' });
  });

  it('loads Claude Code files from .claude/agents unchanged', async () => {
    await writeFiles(project, {
      '.claude/agents/test-runner.md':
        '---\nname: test-runner\ndescription: Runs tests. Use proactively.\ntools: Read, Bash, Grep\nmodel: haiku\ncolor: yellow\n---\nRun the tests.\n',
    });
    const result = await load();
    expect(result.errors).toEqual([]);
    expect(result.agents.find((a) => a.name === 'test-runner')).toMatchObject({
      source: 'project-claude',
      tools: ['Read', 'Grep', 'Bash'],
      color: 'yellow',
    });
  });

  it('finds agents in subfolders (a folder named x.md is a folder), and ignores non-Markdown files', async () => {
    await writeFiles(project, {
      '.cadre/agents/notes.txt': 'x',
      '.cadre/agents/sub/a.md': agentFile('a', 'nested'),
      '.cadre/agents/b.md': agentFile('b', 'top'),
      '.cadre/agents/dir.md/c.md': agentFile('c', 'in a folder with a .md name'),
    });
    await mkdir(path.join(project, '.cadre/agents/empty'));
    const result = await load();
    expect(result.errors).toEqual([]);
    expect(result.agents.map((a) => [a.name, a.relativePath])).toEqual([
      ['a', 'sub/a.md'],
      ['b', 'b.md'],
      ['c', 'dir.md/c.md'],
      ['general-purpose', 'general-purpose.md'],
    ]);
  });

  it('loads the project once when the project is the home directory', async () => {
    await writeFiles(project, {
      '.cadre/agents/a.md': agentFile('a', 'once'),
      '.cadre/config.json': '{"agents": {"b": {"description": "cfg"}}}',
    });
    const result = await loadRegistry({ cwd: project, home: project, builtinDir: builtin });
    expect(result.errors).toEqual([]);
    expect(
      result.agents
        .filter((a) => a.name !== 'general-purpose')
        .map((a) => [a.name, a.source, a.overrides.length]),
    ).toEqual([
      ['a', 'project', 0],
      ['b', 'project-config', 0],
    ]);
  });

  it('reports config.json errors and applies its default limits', async () => {
    await writeFiles(project, {
      '.cadre/config.json': '{"timeout": 42, "idleTimout": 5}',
      '.cadre/agents/a.md': agentFile('a', 'd'),
    });
    const result = await load();
    expect(result.errors).toEqual([
      expect.objectContaining({
        field: 'idleTimout',
        message: 'unknown key "idleTimout" (did you mean "idleTimeout"?)',
      }),
    ]);
    expect(result.agents.find((a) => a.name === 'a')?.timeout).toBe(42);
  });

  it('warns about Task(type) grants naming no agent', async () => {
    await writeFiles(project, {
      '.cadre/agents/lead.md': agentFile('lead', 'd', 'tools: Read, Task(general-purpose, ghost)\n'),
    });
    const result = await load();
    expect(result.warnings).toEqual([
      expect.objectContaining({ field: 'tools', message: 'Task(ghost): no agent named "ghost" is defined' }),
    ]);
  });

  it('finds the package built-ins from the source tree', async () => {
    expect(BUILTIN_AGENTS_DIR).toBe(fileURLToPath(new URL('../../../agents/', import.meta.url)));
    const result = await loadRegistry({ cwd: project, home });
    expect(result.errors).toEqual([]);
    expect(result.agents.map((a) => [a.name, a.source])).toEqual([
      ['bash', 'builtin'],
      ['code-reviewer', 'builtin'],
      ['explore', 'builtin'],
      ['general-purpose', 'builtin'],
      ['main', 'builtin'],
      ['plan', 'builtin'],
    ]);
  });
});

describe('bad files never hide good ones', () => {
  it('loads the good fixtures beside every bad one, garbage and a 1 MB prompt, with one error per bad file', async () => {
    const agentsDir = path.join(project, '.cadre/agents');
    await copyFixture('good', agentsDir);
    await copyFixture('bad', agentsDir);
    const garbage = Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 2654435761) % 256));
    await writeFiles(agentsDir, {
      'garbage.md': garbage,
      'huge.md': `---\nname: huge\ndescription: a 1 MB prompt\ntools: Read\n---\n${'x'.repeat(1024 * 1024)}`,
    });
    const result = await load();
    expect(result.agents.map((a) => a.name)).toEqual([
      'claude-fields',
      'general-purpose',
      'huge',
      'list-tools',
      'not-the-file-name',
      'placeholder',
      'profile-writer',
      'reviewer',
    ]);
    const badFiles = new Set(result.errors.map((e) => path.basename(e.path)));
    expect([...badFiles].sort()).toEqual([
      'all-disallowed.md',
      'bad-name.md',
      'custom-tag.md',
      'empty-tools.md',
      'garbage.md',
      'js-frontmatter.md',
      'malformed-yaml.md',
      'missing-description.md',
      'missing-name.md',
      'only-dashes.md',
      'prompt-twice.md',
      'typo-key.md',
      'unclosed.md',
      'unknown-key.md',
      'unknown-tool.md',
      'wrong-types.md',
    ]);
    for (const e of result.errors) expect(e.path.startsWith(agentsDir)).toBe(true);
  });

  it('two files with one name in one scope: the first by file name is used, the error names both', async () => {
    await writeFiles(project, {
      '.cadre/agents/b-second.md': agentFile('dup', 'second'),
      '.cadre/agents/a-first.md': agentFile('dup', 'first'),
    });
    const result = await load();
    const dup = result.agents.find((a) => a.name === 'dup');
    expect(dup?.description).toBe('first');
    const first = path.join(project, '.cadre/agents/a-first.md');
    const second = path.join(project, '.cadre/agents/b-second.md');
    expect(result.errors).toEqual([
      {
        path: second,
        field: 'name',
        message: `duplicate agent name "dup": ${first} defines it too; that file is used and this one is ignored`,
      },
    ]);
  });

  it('one name in two scopes is precedence, not a duplicate', async () => {
    await writeFiles(project, {
      '.cadre/agents/x.md': agentFile('x', 'cadre'),
      '.claude/agents/x.md': agentFile('x', 'claude'),
    });
    const result = await load();
    expect(result.errors).toEqual([]);
    expect(result.agents.find((a) => a.name === 'x')?.overrides).toEqual([
      { source: 'project-claude', path: path.join(project, '.claude/agents/x.md') },
    ]);
  });
});
