// MCP server configuration as users write it: `.mcp.json`, `mcpServers` in the config files and in
// agent front matter, with errors that name the file, the server and the field.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, parseConfigText } from '../../../src/host/config.js';
import { parseMcpJson } from '../../../src/host/config/mcp-json.js';
import { loadRegistry } from '../../../src/host/registry/load-registry.js';
import { parseAgentFile } from '../../../src/host/registry/parse-agent.js';
import { tempDir, writeFiles } from '../registry/temp-dirs.js';

let project: string;
let home: string;
const cleanups: (() => Promise<void>)[] = [];
beforeEach(async () => {
  const made = await Promise.all([tempDir('cadre-project-'), tempDir('cadre-home-')]);
  [project, home] = made.map((m) => m.dir) as [string, string];
  cleanups.push(...made.map((m) => m.cleanup));
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('.mcp.json that is a directory', () => {
  it('an empty one (a sandbox placeholder a killed cadre left) is no servers; one with files is an error', async () => {
    await mkdir(path.join(project, '.mcp.json'));
    const empty = await loadConfig({ cwd: project, home });
    expect(empty.errors).toEqual([]);
    expect(empty.merged.mcpServers).toEqual({});
    await writeFile(path.join(project, '.mcp.json', 'x'), '{}');
    const full = await loadConfig({ cwd: project, home });
    expect(full.errors[0]?.message).toMatch(/cannot read: EISDIR/);
  });
});

describe('mcpServers in config files', () => {
  it('project config.json over .mcp.json over the user config.json, each entry knowing its scope and file', async () => {
    await writeFiles(home, {
      '.cadre/config.json': JSON.stringify({
        mcpServers: { shared: { command: 'user-shared' }, mine: { url: 'https://u.example/mcp' } },
      }),
    });
    await writeFiles(project, {
      '.mcp.json': JSON.stringify({
        mcpServers: { shared: { command: 'mcp-json' }, docs: { type: 'sse', url: 'http://d/sse' } },
      }),
      '.cadre/config.json': JSON.stringify({
        mcpServers: { docs: { type: 'streamable-http', url: 'http://d/mcp' } },
      }),
    });
    const { merged, errors } = await loadConfig({ cwd: project, home });
    expect(errors).toEqual([]);
    expect(merged.mcpServers).toEqual({
      mine: {
        name: 'mine',
        config: { type: 'http', url: 'https://u.example/mcp' },
        scope: 'user',
        origin: path.join(home, '.cadre/config.json'),
      },
      shared: {
        name: 'shared',
        config: { type: 'stdio', command: 'mcp-json' },
        scope: 'project',
        origin: path.join(project, '.mcp.json'),
      },
      docs: {
        name: 'docs',
        config: { type: 'http', url: 'http://d/mcp' },
        scope: 'project',
        origin: path.join(project, '.cadre/config.json'),
      },
    });
  });

  it('an unknown key in config.json is an error with a hint; a bad server name says why', () => {
    const { errors } = parseConfigText(
      'c.json',
      JSON.stringify({
        mcpServers: { gh: { command: 'x', argz: [] }, 'my.server': { command: 'y' }, a__b: { command: 'z' } },
      }),
    );
    const lines = errors.map((e) => `${e.field}: ${e.message}`);
    expect(lines).toContain('mcpServers.gh.argz: unknown key "argz" (did you mean "args"?)');
    expect(lines.some((l) => l.includes('my.server') && l.includes('letters, digits'))).toBe(true);
    expect(lines.some((l) => l.includes('a__b') && l.includes('letters, digits'))).toBe(true);
  });

  it('timeout, startupTimeout and maxOutputChars are held to their ranges (shared/ranges.ts), naming the field', () => {
    const { errors } = parseConfigText(
      'c.json',
      JSON.stringify({
        mcpServers: {
          a: { command: 'x', timeout: 100_000 },
          b: { command: 'x', startupTimeout: 0 },
          c: { command: 'x', maxOutputChars: 10_000_001 },
          d: { command: 'x', maxOutputChars: 2.5 },
          ok: { command: 'x', timeout: 86_400, startupTimeout: 0.5, maxOutputChars: 10_000_000 },
        },
      }),
    );
    const lines = errors.map((e) => `${e.field}: ${e.message}`);
    expect(lines).toEqual([
      'mcpServers.a.timeout: must be at most 86400 (got 100000)',
      'mcpServers.b.startupTimeout: must be at least 0.001 (got 0)',
      'mcpServers.c.maxOutputChars: must be at most 10000000 (got 10000001)',
      expect.stringMatching(/^mcpServers\.d\.maxOutputChars: /),
    ]);
  });

  it('.mcp.json: a bad entry makes only that server unusable, with the server and field named', () => {
    const { value, errors } = parseMcpJson(
      '/p/.mcp.json',
      JSON.stringify({
        mcpServers: {
          good: { type: 'stdio', command: 'srv', args: ['-v'], env: { A: '${A:-1}' } },
          oauth: { type: 'http', url: 'https://x', oauth: { clientId: 'c' } },
          typo: { comand: 'srv' },
          weird: { type: 'websocket', url: 'ws://x' },
        },
      }),
    );
    expect(errors).toEqual([]);
    expect(value?.servers.good).toEqual({
      config: { type: 'stdio', command: 'srv', args: ['-v'], env: { A: '${A:-1}' } },
    });
    expect(value?.servers.oauth).toEqual({ error: 'mcpServers.oauth.oauth: cadre does not know this key' });
    expect(value?.servers.typo).toEqual({
      error: expect.stringContaining(
        'mcpServers.typo.comand: cadre does not know this key (did you mean "command"?)',
      ) as string,
    });
    expect(value?.servers.weird).toEqual({
      error: expect.stringContaining('mcpServers.weird.type') as string,
    });
  });

  it('.mcp.json that is not JSON, or not an object, is a config error with the line', () => {
    expect(parseMcpJson('/p/.mcp.json', '{ "mcpServers": { ').errors[0]).toMatchObject({
      path: '/p/.mcp.json',
      line: 1,
    });
    expect(parseMcpJson('/p/.mcp.json', '[]').errors[0]?.message).toContain('must be a JSON object');
    expect(parseMcpJson('/p/.mcp.json', '{"mcpServers": []}').errors[0]?.message).toContain(
      'must be a JSON object',
    );
    expect(parseMcpJson('/p/.mcp.json', '').value?.servers).toEqual({});
  });
});

describe('mcpServers in agent front matter', () => {
  const file = (front: string) => `---\nname: a\ndescription: d\n${front}\n---\nprompt\n`;

  it("takes Claude Code's list of names and {name: config} maps", () => {
    const parsed = parseAgentFile(
      '/p/.claude/agents/a.md',
      file(
        'mcpServers:\n  - github\n  - playwright:\n      type: stdio\n      command: npx\n      args: ["-y", "@playwright/mcp"]',
      ),
    );
    expect(parsed.errors).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.agent?.mcpServers).toEqual([
      { name: 'github' },
      { name: 'playwright', inline: { type: 'stdio', command: 'npx', args: ['-y', '@playwright/mcp'] } },
    ]);
    expect(parsed.agent?.inheritsMcpTools).toBe(true);
  });

  it('takes one map, or a comma list of names', () => {
    expect(
      parseAgentFile('/a.md', file('mcpServers:\n  docs:\n    url: http://d/mcp')).agent?.mcpServers,
    ).toEqual([{ name: 'docs', inline: { type: 'http', url: 'http://d/mcp' } }]);
    expect(parseAgentFile('/a.md', file('mcpServers: github, docs')).agent?.mcpServers).toEqual([
      { name: 'github' },
      { name: 'docs' },
    ]);
  });

  it('names the server and the field of every problem, with the line', () => {
    const parsed = parseAgentFile(
      '/a.md',
      file('mcpServers:\n  - bad name\n  - x:\n      comand: srv\n  - 7\n  - github\n  - github'),
    );
    expect(parsed.agent).toBeUndefined();
    const lines = parsed.errors.map((e) => `${e.line}: ${e.field}: ${e.message}`);
    expect(lines).toEqual([
      expect.stringMatching(/^4: mcpServers\.0: "bad name" must be letters/),
      '4: mcpServers.x.command: is required',
      '4: mcpServers.x.comand: unknown key (did you mean "command"?)',
      expect.stringMatching(/^4: mcpServers\.2: must be a list of server names/),
      '4: mcpServers.4: names server "github" twice',
    ]);
  });

  it('an agent that lists its tools does not inherit MCP tools; mcp__server in tools means the whole server', () => {
    const parsed = parseAgentFile('/a.md', file('tools: Read, mcp__github'));
    expect(parsed.agent?.tools).toEqual(['Read', 'mcp__github__*']);
    expect(parsed.agent?.inheritsMcpTools).toBeUndefined();
  });
});

describe('the registry and configured servers', () => {
  it('warns about MCP names no configured server provides, and only those', async () => {
    await writeFiles(project, {
      '.mcp.json': JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } } }),
      '.cadre/agents/a.md':
        '---\nname: a\ndescription: d\ntools: Read, mcp__github__create_issue, mcp__jira__*\nmcpServers:\n  - slack\n  - own:\n      command: own-mcp\n---\np\n',
    });
    const registry = await loadRegistry({ cwd: project, home });
    const mine = registry.warnings.filter((w) => w.path.endsWith('a.md'));
    expect(mine.map((w) => `${w.field}: ${w.message}`)).toEqual([
      expect.stringMatching(/^tools: no MCP server "jira" is configured/),
      expect.stringMatching(/^mcpServers: no MCP server "slack" is configured/),
    ]);
  });
});
