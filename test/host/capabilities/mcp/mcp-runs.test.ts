// End to end: agents in real worker threads call tools of the real stdio fixture server through
// the real SDK, the hub and the one policy function; the model is the fake Messages API.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callbackResolver } from '../../../../src/host/approvals/index.js';
import { overlaps, textReply, toolUseReply, type RecordedRequest } from '../../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../agents/harness.js';
import { logDir, readLog, serverProcesses, stdioConfig } from './mcp-support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** `~/.cadre/config.json` with these servers (user-scoped: no trust needed). */
function userConfig(
  servers: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, string> {
  return { '.cadre/config.json': JSON.stringify({ mcpServers: servers, ...extra }) };
}

const offered = (req: RecordedRequest | undefined) => (req?.body.tools ?? []).map((t) => t.name);
const forAgent = (h: Harness, name: string) =>
  h.server.requests.filter((r) => JSON.stringify(r.body.system ?? '').includes(`[${name}]`));

async function fixtureLog(): Promise<string> {
  return path.join(await logDir(), 'events.jsonl');
}

describe('MCP tools in runs', () => {
  it('an agent that inherits every tool sees the fixture tools and calls a read-only one', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__echo', input: { text: 'hello' } }])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: userConfig({ fixture: stdioConfig(log) }) },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(out.result).toContain('echo: hello');
    expect(offered(h.server.requests[0])).toEqual(
      expect.arrayContaining(['mcp__fixture__echo', 'mcp__fixture__slow', 'mcp__fixture__danger', 'Read']),
    );
    expect(
      readLog(log)
        .filter((e) => e.event === 'call')
        .map((e) => e.tool),
    ).toEqual(['echo']);
    expect(serverProcesses(log)).toHaveLength(1);
  });

  it('8 parallel subagents share one server: one start, one process, calls that overlap', async () => {
    const log = await fixtureLog();
    // Each worker is told to call once all eight have started (or after 10 s): eight threads that
    // start more than 400 ms apart on a loaded machine would otherwise make calls that never overlap.
    let started = 0;
    let allStarted: () => void = () => undefined;
    const eight = new Promise<void>((resolve) => (allStarted = resolve));
    h = await startHarness(
      {
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply(
                Array.from({ length: 8 }, (_, i) => ({
                  name: 'Task',
                  input: { description: `part ${i}`, prompt: `part ${i}`, subagent_type: 'worker' },
                })),
              )
            : textReply('all done'),
        worker: async ({ turn, results }) => {
          if (turn > 0) return textReply(String(results[0]?.content));
          if (++started === 8) allStarted();
          await Promise.race([eight, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
          return toolUseReply([{ name: 'mcp__fixture__slow', input: { ms: 400 } }]);
        },
      },
      { lead: { tools: ['Task'] }, worker: { tools: ['mcp__fixture__slow'] } },
      {
        homeFiles: userConfig(
          { fixture: stdioConfig(log) },
          { permissions: { allow: ['mcp__fixture__slow'] } },
        ),
        concurrency: 9,
      },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'split' });
    expect(out.status).toBe('completed');
    const events = readLog(log);
    expect(events.filter((e) => e.event === 'start')).toHaveLength(1);
    const calls = events.filter((e) => e.event === 'call' || e.event === 'done');
    expect(calls.filter((e) => e.event === 'call')).toHaveLength(8);
    expect(calls.filter((e) => e.event === 'done')).toHaveLength(8);
    const spans = calls
      .filter((e) => e.event === 'call')
      .map((c) => ({
        startedAt: c.at,
        endedAt: calls.find((d) => d.event === 'done' && d.requestId === c.requestId)?.at,
      }));
    expect(overlaps(spans)).toBeGreaterThanOrEqual(4);
    expect(serverProcesses(log)).toHaveLength(1);
    // The lead names no MCP tool: it was offered none and its port has no mcp.call.
    expect(offered(forAgent(h, 'lead')[0]).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(offered(forAgent(h, 'worker')[0])).toEqual(['mcp__fixture__slow']);
  });

  it('a tool that is not read-only asks: a non-interactive run refuses it and the server never sees it', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__danger', input: { what: 'prod' } }])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: userConfig({ fixture: stdioConfig(log) }) },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.result).toContain('needs approval');
    expect(out.result).toContain('mcp__fixture__danger');
    expect(readLog(log).filter((e) => e.event === 'call')).toEqual([]);
  });

  it('every call is in the audit log: who, which tool, the verdict and why, never the input values', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                { name: 'mcp__fixture__echo', input: { text: 'secret-value-1' } },
                { name: 'mcp__fixture__danger', input: { what: 'secret-value-2' } },
              ])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: userConfig({ fixture: stdioConfig(log) }) },
    );
    await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    // The audit log is one of the project's records (~/.cadre/projects/<slug>/audit.jsonl), and
    // is written at most 50 ms after a call.
    const auditLog = h.runtime.records.auditLog;
    expect(auditLog.startsWith(path.join(h.home, '.cadre', 'projects'))).toBe(true);
    let text = '';
    for (let i = 0; i < 500 && (text.match(/mcp\.call/g) ?? []).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await readFile(auditLog, 'utf8').catch(() => '');
    }
    expect(text).not.toContain('secret-value');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.capability === 'mcp.call');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          agentType: 'lead',
          decision: 'allow',
          ok: true,
          args: { summary: 'mcp__fixture__echo (input keys: text)' },
          reason: expect.stringContaining('fixture/echo') as string,
        }),
        expect.objectContaining({
          decision: 'ask',
          approval: 'deny',
          ok: false,
          errorCode: 'approval_denied',
          args: { summary: 'mcp__fixture__danger (input keys: what)' },
        }),
      ]),
    );
  });

  it('an approved call of a tool that is not read-only reaches the server', async () => {
    const log = await fixtureLog();
    const asked: string[] = [];
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__danger', input: { what: 'tmp' } }])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      {
        homeFiles: userConfig({ fixture: stdioConfig(log) }),
        approvals: callbackResolver((request) => {
          asked.push(request.summary);
          return { decision: 'allow', reason: 'approved in the test' };
        }),
      },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.result).toContain('deleted tmp');
    expect(asked).toEqual([expect.stringContaining('tool "danger" of MCP server "fixture"')]);
    expect(
      readLog(log)
        .filter((e) => e.event === 'call')
        .map((e) => e.tool),
    ).toEqual(['danger']);
  });

  it('a deny rule removes the tool from the offer, and a call of it anyway never reaches the server', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__danger', input: { what: 'prod' } }])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      {
        homeFiles: userConfig(
          { fixture: stdioConfig(log) },
          { permissions: { deny: ['mcp__fixture__danger'], allow: ['mcp__fixture'] } },
        ),
      },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(offered(h.server.requests[0])).not.toContain('mcp__fixture__danger');
    expect(offered(h.server.requests[0])).toContain('mcp__fixture__echo');
    expect(out.result).toContain('not_granted');
    expect(readLog(log).filter((e) => e.event === 'call')).toEqual([]);
  });

  it('disallowedTools: mcp__fixture__* hides every fixture tool from the agent and from its children', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                { name: 'mcp__fixture__echo', input: { text: 'lead' } },
                { name: 'Task', input: { description: 'c', prompt: 'child', subagent_type: 'child' } },
              ])
            : textReply(JSON.stringify(results)),
        child: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__echo', input: { text: 'child' } }])
            : textReply(JSON.stringify(results)),
      },
      { lead: { disallowedTools: ['mcp__fixture__*'], maxDepth: 1 }, child: {} },
      { homeFiles: userConfig({ fixture: stdioConfig(log) }, { permissions: { allow: ['mcp__fixture'] } }) },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.status).toBe('completed');
    for (const name of ['lead', 'child']) {
      const requests = forAgent(h, name);
      expect(requests.length).toBeGreaterThan(0);
      for (const r of requests) expect(offered(r).filter((t) => t.startsWith('mcp__'))).toEqual([]);
    }
    // Both models called the tool anyway: both were refused, and the server never started.
    expect(out.result.split('not_granted: no tool named').length - 1).toBe(2);
    expect(readLog(log)).toEqual([]);
    // Without the restriction the same child sees them (the test above is not vacuous).
    const alone = await h.runtime.run({ subagent_type: 'child', prompt: 'alone' });
    expect(alone.result).toContain('echo: child');
  });

  it('a server that says its tools changed is listed again: later runs see the new tool', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__grow', input: {} }])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: userConfig({ fixture: stdioConfig(log) }, { permissions: { allow: ['mcp__fixture'] } }) },
    );
    await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(offered(h.server.requests[0])).not.toContain('mcp__fixture__grown');
    const before = h.server.requests.length;
    await h.runtime.run({ subagent_type: 'lead', prompt: 'again' });
    expect(offered(h.server.requests[before])).toContain('mcp__fixture__grown');
    expect(readLog(log).filter((e) => e.event === 'start')).toHaveLength(1);
  });

  it('a project server nobody trusted is not started; a tree of runs is told so once, with the command', async () => {
    const log = await fixtureLog();
    const notices: string[] = [];
    h = await startHarness(
      {
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply(
                [0, 1, 2].map((i) => ({
                  name: 'Task',
                  input: { description: `c${i}`, prompt: `c${i}`, subagent_type: 'child' },
                })),
              )
            : textReply('done'),
        child: () => textReply('child done'),
      },
      { lead: { maxDepth: 1 }, child: {} },
      { files: { '.mcp.json': JSON.stringify({ mcpServers: { fixture: stdioConfig(log) } }) } },
    );
    const handle = await h.runtime.task(
      { subagent_type: 'lead', prompt: 'go' },
      { onEvent: (e) => void (e.type === 'notice' && notices.push(e.message)) },
    );
    expect((await handle.result).status).toBe('completed');
    const untrusted = notices.filter((n) => n.includes('not trusted'));
    expect(untrusted).toHaveLength(1);
    expect(untrusted[0]).toContain(`cadre mcp trust --cwd ${h.dir} fixture`);
    expect(readLog(log)).toEqual([]);
    expect(
      h.server.requests.every((r) => !(r.body.tools ?? []).some((t) => t.name.startsWith('mcp__'))),
    ).toBe(true);
  });

  it('images, structured content, isError and the output budget reach the model as tool_result content', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                { name: 'mcp__fixture__image', input: {} },
                { name: 'mcp__fixture__big', input: { chars: 5000 } },
                { name: 'mcp__fixture__fail', input: {} },
                { name: 'mcp__fixture__whoami', input: {} },
              ])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: userConfig({ fixture: stdioConfig(log, { maxOutputChars: 1000 }) }) },
    );
    await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    const results = h.server.requests[1]?.body.messages.at(-1)?.content as Record<string, unknown>[];
    const [image, big, fail, whoami] = results;
    expect(image?.content).toEqual([
      { type: 'text', text: 'one pixel:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: expect.any(String) } },
    ]);
    expect(String(big?.content).length).toBeLessThanOrEqual(1000);
    expect(big?.content).toMatch(/output truncated: \d+ of 5000 characters not shown.*maxOutputChars/);
    expect(fail).toMatchObject({ is_error: true, content: 'it went wrong on purpose' });
    expect(whoami?.content).toMatch(/^pid \d+$/);
  });
});
