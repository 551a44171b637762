// The hub against the real stdio fixture: one connection per configuration, and the life of inline
// servers (held by runs, ended a short while after the last one lets go).
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpHub } from '../../../../src/host/capabilities/mcp/hub.js';
import { resolveServer, type McpSource } from '../../../../src/host/capabilities/mcp/server-spec.js';
import { textReply, toolUseReply } from '../../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../agents/harness.js';
import { logDir, readLog, serverProcesses, stdioConfig, until } from './mcp-support.js';

let hub: McpHub | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await hub?.close();
  await h?.close();
  hub = undefined;
  h = undefined;
});

async function source(over: Partial<McpSource> = {}): Promise<{ source: McpSource; log: string }> {
  const log = path.join(await logDir(), 'events.jsonl');
  const config = stdioConfig(log, { sandbox: false }) as McpSource['config'];
  return {
    log,
    source: {
      name: 'fix',
      config: { ...config, type: 'stdio' } as McpSource['config'],
      scope: 'user',
      origin: 't',
      ...over,
    },
  };
}

const bases = { cwd: process.cwd(), home: process.cwd() };

describe('the hub', () => {
  it('gives one connection per configuration, whatever the name', async () => {
    hub = new McpHub({ projectDir: process.cwd(), home: process.cwd(), sandboxMode: 'off' });
    const { source: a, log } = await source();
    const one = hub.connection(resolveServer(a, {}, bases));
    const two = hub.connection(resolveServer({ ...a, name: 'other' }, {}, bases));
    expect(two).toBe(one);
    await Promise.all([one.listTools(), two.listTools(), one.listTools()]);
    expect(readLog(log).filter((e) => e.event === 'start')).toHaveLength(1);
  });

  it('a server that fails to start is described with its stderr made inert (its escapes never reach a terminal)', async () => {
    hub = new McpHub({ projectDir: process.cwd(), home: process.cwd(), sandboxMode: 'off' });
    const script = "process.stderr.write('boom \\u001b]0;pwned\\u0007\\u001b[2J\\u202e'); process.exit(3)";
    const spec = resolveServer(
      {
        name: 'broken',
        config: { type: 'stdio', command: process.execPath, args: ['-e', script], sandbox: false },
        scope: 'user',
        origin: 't',
      },
      {},
      bases,
    );
    const connection = hub.connection(spec);
    const error = await connection.listTools().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('boom ␛]0;pwned␇␛[2J<U+202E>');
    expect(connection.lastError).toContain('boom ␛]0;pwned␇␛[2J<U+202E>');
    for (const ch of connection.lastError ?? '') {
      const c = ch.charCodeAt(0);
      expect((c < 0x20 && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || c === 0x202e).toBe(false);
    }
  });

  it('an inline server ends a short while after the last run holding it lets go', async () => {
    hub = new McpHub({
      projectDir: process.cwd(),
      home: process.cwd(),
      sandboxMode: 'off',
      inlineLingerMs: 100,
    });
    const { source: inline, log } = await source({ agent: 'writer' });
    const spec = resolveServer(inline, {}, bases);
    const first = hub.hold(spec);
    const second = hub.hold(spec);
    await hub.connection(spec).listTools();
    expect(serverProcesses(log)).toHaveLength(1);
    first();
    first();
    await new Promise((r) => setTimeout(r, 300));
    expect(serverProcesses(log)).toHaveLength(1);
    second();
    await until(() => serverProcesses(log).length === 0, 5000, 'the inline server to end');
    // A later run starts it again.
    const again = hub.hold(spec);
    await hub.connection(spec).listTools();
    expect(readLog(log).filter((e) => e.event === 'start')).toHaveLength(2);
    again();
  });

  it('a configured server with the same configuration keeps it alive', async () => {
    hub = new McpHub({
      projectDir: process.cwd(),
      home: process.cwd(),
      sandboxMode: 'off',
      inlineLingerMs: 50,
    });
    const { source: configured, log } = await source();
    const spec = resolveServer(configured, {}, bases);
    await hub.connection(spec).listTools();
    const inline = resolveServer({ ...configured, agent: 'writer' }, {}, bases);
    hub.hold(inline)();
    await new Promise((r) => setTimeout(r, 300));
    expect(serverProcesses(log)).toHaveLength(1);
  });

  it("an agent's inline server serves its runs and ends after them", async () => {
    const log = path.join(await logDir(), 'events.jsonl');
    h = await startHarness(
      {
        writer: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__own__echo', input: { text: 'mine' } }])
            : textReply(JSON.stringify(results)),
        other: () => textReply('no mcp'),
      },
      { writer: { tools: ['Read'], mcpServers: [{ own: stdioConfig(log) }] }, other: {} },
    );
    const out = await h.runtime.run({ subagent_type: 'writer', prompt: 'go' });
    expect(out.result).toContain('echo: mine');
    // Another agent does not see it.
    await h.runtime.run({ subagent_type: 'other', prompt: 'go' });
    expect((h.server.requests.at(-1)?.body.tools ?? []).some((t) => t.name.startsWith('mcp__own'))).toBe(
      false,
    );
    await until(() => serverProcesses(log).length === 0, 10_000, 'the inline server to end after the run');
  });
});
