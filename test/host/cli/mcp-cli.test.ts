// `cadre mcp list`, `cadre mcp trust` and MCP in `cadre run`, driven as a user would: the compiled
// binary, a project `.mcp.json` naming the real stdio fixture server, the fake Messages API.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  textReply,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { CLI, runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { logDir, readLog, STDIO_SERVER, stdioConfig } from '../capabilities/mcp/mcp-support.js';

let server: FakeAnthropic;
let project: Awaited<ReturnType<typeof tempProject>>;
let env: Record<string, string>;
let log: string;

const AGENTS = JSON.stringify({
  lead: { description: 'calls echo', prompt: '[lead] test agent' },
  reader: { description: 'reads only', prompt: '[reader] test agent', tools: ['Read'] },
});

beforeEach(async () => {
  project = await tempProject({ 'README.md': '# demo\n' });
  log = path.join(await logDir(), 'events.jsonl');
  server = await startFakeAnthropic({
    responder: (req) => {
      const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
      const offers = (req.body.tools ?? []).some((t) => t.name === 'mcp__fixture__echo');
      if (turn === 0 && offers) return toolUseReply([{ name: 'mcp__fixture__echo', input: { text: 'cli' } }]);
      return textReply(`final: ${JSON.stringify(req.body.messages.at(-1)?.content).slice(0, 300)}`);
    },
  });
  env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, HOME: project.home };
});
afterEach(async () => {
  await server.close();
  await project.cleanup();
});

async function writeMcpJson(servers: Record<string, unknown>): Promise<void> {
  await writeFile(path.join(project.dir, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
}

const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCli([...args, '--cwd', project.dir, '--agents', AGENTS], { ...env, ...extra }, project.dir);

describe('cadre mcp', () => {
  it('project servers need trust: a run refuses them and prints the command; after cadre mcp trust they run', async () => {
    await writeMcpJson({ fixture: stdioConfig(log) });
    const refused = await cli(['run', 'lead', 'go']);
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain('MCP server fixture (configured by this project in');
    expect(refused.stderr).toMatch(/not trusted.*cadre mcp trust --cwd \S+ fixture/);
    expect(readLog(log)).toEqual([]);

    const listed = await cli(['mcp', 'list']);
    expect(listed.stdout).toMatch(/^fixture {2}untrusted {2}\(project, stdio\)/m);
    expect(readLog(log)).toEqual([]);

    const trusted = await cli(['mcp', 'trust']);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toMatch(/trusted fixture \(.*\.mcp\.json\): \S*node /);
    const record = JSON.parse(
      await readFile(path.join(project.home, '.cadre', 'mcp-trust.json'), 'utf8'),
    ) as {
      projects: Record<string, Record<string, string>>;
    };
    expect(Object.keys(record.projects)).toEqual([expect.stringContaining('project')]);
    await expect(readFile(path.join(project.dir, '.cadre', 'mcp-trust.json'))).rejects.toThrow();

    const ran = await cli(['run', 'lead', 'go']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('echo: cli');
    expect(ran.stderr).not.toContain('not trusted');

    // A changed configuration is a different server: trusted again only on request.
    await writeMcpJson({ fixture: stdioConfig(log, { args: [STDIO_SERVER, log, '--changed'] }) });
    const changed = await cli(['run', 'lead', 'go']);
    expect(changed.stderr).toContain('not trusted');
  });

  it('a trusted project server gets the variables its configuration names, and trusting names every one of them', async () => {
    await writeMcpJson({
      fixture: stdioConfig(log, {
        args: [STDIO_SERVER, log, '--key=${FIXTURE_SECRET}'],
        env: { TEAM_TOKEN: '${FIXTURE_TOKEN}' },
      }),
    });
    const vars = { FIXTURE_SECRET: 's3cret', FIXTURE_TOKEN: 't0ken' };
    const listed = await cli(['mcp', 'list', '--no-connect'], vars);
    expect(listed.stdout).not.toContain('s3cret');
    const trusted = await cli(['mcp', 'trust'], vars);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('passes your $FIXTURE_TOKEN, $FIXTURE_SECRET');
    expect(trusted.stdout).not.toMatch(/s3cret|t0ken/);
    const ran = await cli(['run', 'lead', 'go'], vars);
    expect(ran.stdout).toContain('echo: cli');
    const start = readLog(log).find((e) => e.event === 'start') as unknown as { argv: string[] };
    expect(start.argv).toContain('--key=s3cret');
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'on a terminal the first run asks whether to trust project servers; yes trusts them and the run uses them',
    async () => {
      await writeMcpJson({ fixture: stdioConfig(log) });
      // util-linux `script` gives the CLI a terminal for stdin and stderr.
      const command = [process.execPath, CLI, 'run', 'lead', 'go', '--cwd', project.dir, '--agents', AGENTS]
        .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        cwd: project.dir,
        env: { ...env, PATH: process.env.PATH ?? '', TERM: 'dumb' },
      });
      let output = '';
      let answered = false;
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        if (!answered && output.includes('Trust them? [y/N]')) {
          answered = true;
          child.stdin.write('y\r');
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(output).toContain('configures MCP servers you have not trusted yet');
      expect(output).toMatch(/fixture \(.*\.mcp\.json\): \S*node /);
      expect(code).toBe(0);
      expect(output).toContain('echo: cli');
      const record = await readFile(path.join(project.home, '.cadre', 'mcp-trust.json'), 'utf8');
      expect(record).toContain('"fixture"');
      // Trusted now: a run without a terminal uses it too.
      const again = await cli(['run', 'lead', 'go']);
      expect(again.stdout).toContain('echo: cli');
    },
  );

  it('cadre mcp list shows status, tools under their model names, and which agents see them', async () => {
    await mkdir(path.join(project.home, '.cadre'), { recursive: true });
    await writeFile(
      path.join(project.home, '.cadre', 'config.json'),
      JSON.stringify({ mcpServers: { fixture: stdioConfig(log) } }),
    );
    const text = await cli(['mcp', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^fixture {2}connected {2}\(user, stdio, sandbox (bwrap|none)\)/m);
    expect(text.stdout).toMatch(/mcp__fixture__echo +read-only +.*\blead\b/);
    const json = await cli(['mcp', 'list', '--json']);
    const [fixture] = JSON.parse(json.stdout) as {
      id: string;
      status: string;
      agents: string[];
      tools: { name: string; readOnly: boolean; agents: string[] }[];
    }[];
    expect(fixture?.status).toBe('connected');
    expect(fixture?.agents).toContain('lead');
    expect(fixture?.agents).not.toContain('reader');
    const echo = fixture?.tools.find((t) => t.name === 'mcp__fixture__echo');
    expect(echo).toMatchObject({ readOnly: true });
    expect(echo?.agents).toContain('lead');
    expect(fixture?.tools.find((t) => t.name === 'mcp__fixture__danger')?.readOnly).toBe(false);
    // Listing started the server once per listing and stopped it afterwards.
    expect(readLog(log).filter((e) => e.event === 'start')).toHaveLength(2);
    expect(readLog(log).filter((e) => e.event === 'exit')).toHaveLength(2);
  });

  it('a refused MCP call is shown and counted like any refused effect', async () => {
    await mkdir(path.join(project.home, '.cadre'), { recursive: true });
    await writeFile(
      path.join(project.home, '.cadre', 'config.json'),
      JSON.stringify({ mcpServers: { fixture: stdioConfig(log) } }),
    );
    await server.close();
    server = await startFakeAnthropic({
      responder: (req) => {
        const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
        if (turn === 0) return toolUseReply([{ name: 'mcp__fixture__danger', input: { what: 'prod' } }]);
        return textReply('done');
      },
    });
    env.ANTHROPIC_BASE_URL = server.url;
    const r = await cli(['run', 'lead', 'go', '--json']);
    expect(r.stderr).toMatch(
      /✗ refused: mcp__fixture__danger \(input keys: what\) — mcp\.call was not run: it needs approval.*"mcp__fixture__danger"/,
    );
    expect(r.stderr).toMatch(/completed in [\d.]+ s, 2 turns, 1 tool calls \(1 refused\)/);
    expect((JSON.parse(r.stdout) as { refused: number }).refused).toBe(1);
    expect(readLog(log).filter((e) => e.event === 'call')).toEqual([]);
  });

  it('a missing ${VAR} is an error naming the server and the field', async () => {
    await mkdir(path.join(project.home, '.cadre'), { recursive: true });
    const config = stdioConfig(log, { env: { API_TOKEN: '${FIXTURE_TOKEN}' } });
    await writeFile(
      path.join(project.home, '.cadre', 'config.json'),
      JSON.stringify({ mcpServers: { fixture: config } }),
    );
    const run = await cli(['run', 'lead', 'go']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /MCP server "fixture" \(.*config\.json\): env\.API_TOKEN: \$\{FIXTURE_TOKEN\} is not set and has no default/,
    );
    expect(readLog(log)).toEqual([]);
    // An agent that uses no MCP server is not affected.
    const reader = await cli(['run', 'reader', 'go']);
    expect(reader.code).toBe(0);
    const listed = await cli(['mcp', 'list']);
    expect(listed.stdout).toMatch(/fixture {2}invalid/);
    expect(listed.stdout).toContain('${FIXTURE_TOKEN} is not set');
    // With the variable set, the same configuration works.
    const ok = await cli(['run', 'lead', 'go'], { FIXTURE_TOKEN: 'abc' });
    expect(ok.stdout).toContain('echo: cli');
  });

  it('bad entries are reported with the server and field; unknown names to trust are refused', async () => {
    await writeMcpJson({ fixture: stdioConfig(log), broken: { command: 'x', headersHelper: 'y' } });
    const listed = await cli(['mcp', 'list', '--no-connect']);
    expect(listed.stdout).toMatch(/broken {2}invalid/);
    expect(listed.stdout).toContain('mcpServers.broken.headersHelper: cadre does not know this key');
    const unknown = await cli(['mcp', 'trust', 'fixtrue']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"fixtrue" (did you mean "fixture"?)');
  });
});
