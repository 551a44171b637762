// End to end: agents in real worker threads call tools of the real stdio fixture server through
// the real SDK, the hub and the one policy function; the model is the fake Messages API.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../agents/harness.js';
import { logDir, readLog, serverProcesses, stdioConfig } from './mcp-support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function userConfig(
  servers: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, string> {
  return { '.cadre/config.json': JSON.stringify({ mcpServers: servers, ...extra }) };
}

describe('MCP tools in runs', () => {
  it('an agent that inherits every tool sees the fixture tools and calls a read-only one', async () => {
    const log = path.join(await logDir(), 'events.jsonl');
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
    const offered = h.server.requests[0]?.body.tools?.map((t) => t.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['mcp__fixture__echo', 'mcp__fixture__slow', 'Read']));
    expect(
      readLog(log)
        .filter((e) => e.event === 'call')
        .map((e) => e.tool),
    ).toEqual(['echo']);
    expect(serverProcesses(log)).toHaveLength(1);
  });
});
