// The life of a stdio MCP server under real runs: a crash mid-call (the call fails, is not retried,
// the server comes back), a call past its timeout and a call whose agent is stopped (both cancelled
// on the server), and shutdown (no server process and no grandchild left, sandboxed or not).
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../agents/harness.js';
import { alive, grandchildren, logDir, readLog, serverProcesses, stdioConfig, until } from './mcp-support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function fixtureLog(): Promise<string> {
  return path.join(await logDir(), 'events.jsonl');
}

function homeFiles(servers: Record<string, unknown>): Record<string, string> {
  return {
    '.cadre/config.json': JSON.stringify({ mcpServers: servers, permissions: { allow: ['mcp__fixture'] } }),
  };
}

describe('MCP server lifecycle', () => {
  it('a server killed mid-call: the call fails cleanly and is not retried; the server is restarted', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__slow', input: { ms: 20_000 } }])
            : turn === 1
              ? toolUseReply([{ name: 'mcp__fixture__whoami', input: {} }])
              : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: homeFiles({ fixture: stdioConfig(log) }) },
    );
    const handle = await h.runtime.task({ subagent_type: 'lead', prompt: 'go' });
    await until(() => readLog(log).some((e) => e.tool === 'slow'), 10_000, 'the slow call');
    const [first] = serverProcesses(log);
    expect(first).toBeDefined();
    process.kill(first as number, 'SIGKILL');
    const out = await handle.result;
    expect(out.status).toBe('completed');
    const second = h.server.requests[1]?.body.messages.at(-1)?.content as Record<string, unknown>[];
    expect(second[0]).toMatchObject({ is_error: true });
    expect(String(second[0]?.content)).toMatch(
      /mcp_error: the MCP server "fixture" (was killed|exited with code \d+) while slow was running; the call was not retried/,
    );
    expect(out.result).toMatch(/pid \d+/);
    const events = readLog(log);
    expect(events.filter((e) => e.event === 'start')).toHaveLength(2);
    expect(events.filter((e) => e.tool === 'slow')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'done')).toEqual([]);
    expect(alive(first as number)).toBe(false);
    expect(serverProcesses(log)).toHaveLength(1);
  });

  it('a slow tool times out at its configured limit and the server receives the cancellation', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__slow', input: { ms: 30_000 } }])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: homeFiles({ fixture: stdioConfig(log, { timeout: 1 }) }) },
    );
    const started = Date.now();
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    const took = Date.now() - started;
    expect(out.result).toContain('mcp__fixture__slow did not answer within 1 s');
    expect(out.result).toContain('timeout');
    expect(took).toBeLessThan(15_000);
    await until(() => readLog(log).some((e) => e.event === 'cancelled'), 15_000, 'the cancellation');
    const events = readLog(log);
    const call = events.find((e) => e.tool === 'slow' && e.event === 'call');
    const cancelled = events.find((e) => e.event === 'cancelled');
    expect(cancelled?.requestId).toBe(call?.requestId);
    expect((cancelled?.at ?? 0) - (call?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(cancelled?.reason).toMatch(/timed out/i);
  });

  it('stopping the calling agent cancels its call on the server', async () => {
    const log = await fixtureLog();
    h = await startHarness(
      { lead: () => toolUseReply([{ name: 'mcp__fixture__slow', input: { ms: 30_000 } }]) },
      { lead: {} },
      { homeFiles: homeFiles({ fixture: stdioConfig(log) }) },
    );
    const handle = await h.runtime.task({ subagent_type: 'lead', prompt: 'go' });
    await until(() => readLog(log).some((e) => e.tool === 'slow'), 10_000, 'the slow call');
    handle.stop();
    const out = await handle.result;
    expect(out.status).toBe('cancelled');
    await until(() => readLog(log).some((e) => e.event === 'cancelled'), 15_000, 'the cancellation');
    const call = readLog(log).find((e) => e.tool === 'slow');
    expect(readLog(log).find((e) => e.event === 'cancelled')?.requestId).toBe(call?.requestId);
    // The server itself lives on for other agents.
    expect(serverProcesses(log)).toHaveLength(1);
  });

  for (const sandbox of [true, false]) {
    it(`after shutdown no server process or grandchild is left (${sandbox ? 'sandboxed' : 'sandbox: false'})`, async () => {
      const log = await fixtureLog();
      const config = stdioConfig(log, {
        env: { MCP_FIXTURE_GRANDCHILD: '1' },
        ...(sandbox ? {} : { sandbox: false }),
      });
      h = await startHarness(
        {
          lead: ({ turn, results }) =>
            turn === 0
              ? toolUseReply([{ name: 'mcp__fixture__echo', input: { text: 'x' } }])
              : textReply(JSON.stringify(results)),
        },
        { lead: {} },
        { homeFiles: homeFiles({ fixture: config }) },
      );
      const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
      expect(out.result).toContain('echo: x');
      await until(() => grandchildren(log).length === 1, 15_000, 'the grandchild');
      const pids = [...serverProcesses(log), ...grandchildren(log)];
      expect(pids).toHaveLength(2);
      await h.close();
      h = undefined;
      await until(() => pids.every((pid) => !alive(pid)), 15_000, 'every server process to end');
      expect(serverProcesses(log)).toEqual([]);
      expect(grandchildren(log)).toEqual([]);
    });
  }
});
