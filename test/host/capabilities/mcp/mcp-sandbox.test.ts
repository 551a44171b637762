// What a stdio MCP server can touch, checked with canaries from inside the real fixture server:
// under the sandbox the project is read-only, its state directory and configured directories are
// writable, the network is there unless taken away; its environment never holds the host's key.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../../../src/host/capabilities/sandbox.js';
import { textReply, toolUseReply, type ToolCallSpec } from '../../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../agents/harness.js';
import { logDir, readLog, stdioConfig } from './mcp-support.js';

let h: Harness | undefined;
let web: Server | undefined;
// Where bubblewrap cannot run, servers run unsandboxed (sandbox.mode auto): the canaries then skip.
const sandboxed = (await probeSandbox()).available;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await new Promise((r) => (web ? web.close(r) : r(undefined)));
  web = undefined;
});

/** Runs one agent that makes `calls`, against the fixture configured with `extra`; returns the results. */
async function calls(extra: Record<string, unknown>, make: (dir: string) => ToolCallSpec[]) {
  const log = path.join(await logDir(), 'events.jsonl');
  // The fixture must still write its log: keep the log's directory writable in any sandbox setting.
  const sandbox = extra.sandbox as { writable?: string[] } | boolean | undefined;
  const config =
    typeof sandbox === 'object'
      ? stdioConfig(log, {
          ...extra,
          sandbox: { ...sandbox, writable: [...(sandbox.writable ?? []), path.dirname(log)] },
        })
      : stdioConfig(log, extra);
  let dir = '';
  h = await startHarness(
    {
      lead: ({ turn, results }) =>
        turn === 0 ? toolUseReply(make(dir)) : textReply(JSON.stringify(results.map((r) => r.content))),
    },
    { lead: {} },
    {
      homeFiles: {
        '.cadre/config.json': JSON.stringify({
          mcpServers: { fixture: config },
          permissions: { allow: ['mcp__fixture'] },
        }),
      },
    },
  );
  dir = h.dir;
  const out = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
  return { results: JSON.parse(out.result) as string[], log, dir: h.dir, home: h.home };
}

describe('the sandbox of stdio MCP servers', () => {
  it.skipIf(!sandboxed)(
    'the project is read-only to the server; configured directories are writable',
    async () => {
      const writable = await logDir();
      const { results, dir } = await calls({ sandbox: { writable: [writable] } }, (d) => [
        { name: 'mcp__fixture__touch', input: { path: path.join(d, 'canary.txt') } },
        { name: 'mcp__fixture__touch', input: { path: path.join(writable, 'ok.txt') } },
      ]);
      expect(results[0]).toMatch(/could not write .*canary\.txt: (EROFS|EACCES|EPERM)/);
      expect(results[1]).toContain('wrote');
      await expect(readFile(path.join(dir, 'canary.txt'))).rejects.toThrow();
      expect(await readFile(path.join(writable, 'ok.txt'), 'utf8')).toContain('MCP fixture');
    },
  );

  it("HOME is the server's own state directory, and the host's API key is not in its environment", async () => {
    const before = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'host-secret-key';
    try {
      const { log, home } = await calls({}, () => [{ name: 'mcp__fixture__echo', input: { text: 'x' } }]);
      const start = readLog(log).find((e) => e.event === 'start');
      expect(start?.secret).toBeNull();
      expect(start?.home).toMatch(new RegExp(`^${path.join(home, '.cadre', 'mcp')}/[0-9a-f]{16}$`));
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = before;
    }
  });

  it.skipIf(!sandboxed)('the network is there by default and gone with sandbox.network false', async () => {
    web = createServer((_req, res) => res.end('hello from the host')).listen(0, '127.0.0.1');
    await new Promise((r) => web?.once('listening', r));
    const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/`;
    const open = await calls({}, () => [{ name: 'mcp__fixture__fetch_url', input: { url } }]);
    expect(open.results[0]).toContain('status 200: hello from the host');
    await h?.close();
    h = undefined;
    const closed = await calls({ sandbox: { network: false } }, () => [
      { name: 'mcp__fixture__fetch_url', input: { url } },
    ]);
    expect(closed.results[0]).toMatch(/could not fetch: (ECONNREFUSED|ENETUNREACH|EAI_AGAIN|.*fetch failed)/);
  });

  it('sandbox: false runs the server as the user, with the project writable', async () => {
    const { results, dir } = await calls({ sandbox: false }, (d) => [
      { name: 'mcp__fixture__touch', input: { path: path.join(d, 'written.txt') } },
    ]);
    expect(results[0]).toContain('wrote');
    expect(await readFile(path.join(dir, 'written.txt'), 'utf8')).toContain('MCP fixture');
  });
});
