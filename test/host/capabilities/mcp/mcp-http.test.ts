// Remote MCP servers: the real SDK client against the loopback fixture server over Streamable HTTP
// and legacy SSE, with headers from `${VAR}` expansion, several agents sharing one session, calls
// that time out (and are cancelled on the server), and a server that goes away and comes back.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../../../fixtures/mcp/http-server.mjs';
import { textReply, toolUseReply } from '../../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../agents/harness.js';
import { logDir, readLog, until } from './mcp-support.js';

let h: Harness | undefined;
let remote: HttpFixture | undefined;
afterEach(async () => {
  await h?.close();
  await remote?.close();
  h = undefined;
  remote = undefined;
});

const config = (servers: Record<string, unknown>) => ({
  '.cadre/config.json': JSON.stringify({ mcpServers: servers, permissions: { allow: ['mcp__remote'] } }),
});

async function fixtureLog(): Promise<string> {
  return path.join(await logDir(), 'events.jsonl');
}

describe('remote MCP servers', () => {
  for (const type of ['http', 'sse'] as const) {
    it(`${type}: headers come from \${VAR}; parallel agents share one session`, async () => {
      const log = await fixtureLog();
      remote = await startHttpFixture({ log, requireAuth: 'Bearer s3cret' });
      h = await startHarness(
        {
          lead: ({ turn }) =>
            turn === 0
              ? toolUseReply(
                  Array.from({ length: 4 }, (_, i) => ({
                    name: 'Task',
                    input: { description: `p${i}`, prompt: `p${i}`, subagent_type: 'worker' },
                  })),
                )
              : textReply('done'),
          worker: ({ turn, results }) =>
            turn === 0
              ? toolUseReply([{ name: 'mcp__remote__echo', input: { text: 'over the wire' } }])
              : textReply(String(results[0]?.content)),
        },
        { lead: { tools: ['Task'] }, worker: { tools: ['mcp__remote'] } },
        {
          homeFiles: config({
            remote: {
              type,
              url: `${remote.url}/${type === 'http' ? 'mcp' : 'sse'}`,
              headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' },
            },
          }),
          env: { REMOTE_TOKEN: 's3cret' },
        },
      );
      const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
      expect(out.status).toBe('completed');
      const events = readLog(log);
      expect(events.filter((e) => e.event === 'unauthorized')).toEqual([]);
      expect(events.filter((e) => e.event === 'start')).toHaveLength(1);
      expect(events.filter((e) => e.tool === 'echo')).toHaveLength(4);
      const workerResults = h.server.requests
        .filter((r) => JSON.stringify(r.body.system).includes('[worker]'))
        .flatMap((r) => JSON.stringify(r.body.messages));
      expect(workerResults.join('').split('echo: over the wire').length - 1).toBeGreaterThanOrEqual(4);
    });
  }

  it('http: a timeout cancels the call on the server', async () => {
    const log = await fixtureLog();
    remote = await startHttpFixture({ log });
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__remote__slow', input: { ms: 30_000 } }])
            : textReply(JSON.stringify(results)),
      },
      { lead: {} },
      { homeFiles: config({ remote: { type: 'http', url: `${remote.url}/mcp`, timeout: 1 } }) },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(out.result).toContain('did not answer within 1 s');
    await until(() => readLog(log).some((e) => e.event === 'cancelled'), 15_000, 'the cancellation');
  });

  it('http: a server that goes away fails the next call cleanly (not retried); once it is back, a new session serves the one after', async () => {
    const log = await fixtureLog();
    remote = await startHttpFixture({ log });
    const port = Number(new URL(remote.url).port);
    h = await startHarness(
      {
        // The server goes down after the first answer, before the second call, and is back before
        // the third: each step waits for the one before, so no timing decides the order.
        lead: async ({ turn, results }) => {
          if (turn === 0) return toolUseReply([{ name: 'mcp__remote__echo', input: { text: 'one' } }]);
          if (turn === 1) {
            const old = remote;
            remote = undefined;
            await old?.close();
            return toolUseReply([{ name: 'mcp__remote__echo', input: { text: 'two' } }]);
          }
          if (turn === 2) {
            remote = await startHttpFixture({ log, port });
            return toolUseReply([{ name: 'mcp__remote__echo', input: { text: 'three' } }], {
              latencyMs: 1500,
            });
          }
          return textReply(JSON.stringify(results));
        },
      },
      { lead: {} },
      { homeFiles: config({ remote: { type: 'http', url: `${remote.url}/mcp` } }) },
    );
    const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    const results = h.server.requests.slice(1).map((r) => JSON.stringify(r.body.messages.at(-1)?.content));
    expect(results[0]).toContain('echo: one');
    expect(results[1]).toMatch(
      /mcp_error: the MCP server \\"remote\\" closed the connection while echo was running; the call was not retried/,
    );
    expect(out.result).toContain('echo: three');
    expect(readLog(log).filter((e) => e.event === 'start')).toHaveLength(2);
  });

  it('http: a server that is down makes its tools unavailable with a notice, and the run goes on', async () => {
    remote = await startHttpFixture({});
    const url = `${remote.url}/mcp`;
    await remote.close();
    remote = undefined;
    const notices: string[] = [];
    h = await startHarness(
      { lead: () => textReply('no tools needed') },
      { lead: {} },
      { homeFiles: config({ remote: { type: 'http', url, startupTimeout: 5 } }) },
    );
    const handle = await h.runtime.task(
      { subagent_type: 'lead', prompt: 'go' },
      { onEvent: (e) => void (e.type === 'notice' && notices.push(e.message)) },
    );
    const out = await handle.result;
    expect(out.status).toBe('completed');
    expect(notices.join('\n')).toMatch(
      /MCP server "remote" is unavailable, its tools are not offered: .*could not start/,
    );
    expect(h.server.requests[0]?.body.tools?.some((t) => t.name.startsWith('mcp__'))).toBe(false);
  });
});
