// Runs without MCP pay nothing: no MCP client loaded, no trust file read, no server started. The
// client loads when the first run that may use a server starts. (One process per test file: the
// order of the two tests below matters.)
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sdkAdapterLoaded } from '../../../../src/host/capabilities/mcp/adapter-loader.js';
import { textReply, toolUseReply } from '../../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../agents/harness.js';
import { logDir, readLog, stdioConfig } from './mcp-support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('MCP costs nothing until used', () => {
  it('a run with no MCP server configured never loads the MCP client', async () => {
    h = await startHarness({ lead: () => textReply('done') }, { lead: {} });
    expect((await h.runtime.run({ subagent_type: 'lead', prompt: 'go' })).status).toBe('completed');
    expect(sdkAdapterLoaded()).toBe(false);
  });

  it('an agent that names no MCP tool does not start a configured server; one that may use it does', async () => {
    const log = path.join(await logDir(), 'events.jsonl');
    h = await startHarness(
      {
        reader: () => textReply('done'),
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply([{ name: 'mcp__fixture__echo', input: { text: 'a' } }])
            : textReply('done'),
      },
      { reader: { tools: ['Read'] }, lead: {} },
      { homeFiles: { '.cadre/config.json': JSON.stringify({ mcpServers: { fixture: stdioConfig(log) } }) } },
    );
    await h.runtime.run({ subagent_type: 'reader', prompt: 'go' });
    expect(sdkAdapterLoaded()).toBe(false);
    expect(readLog(log)).toEqual([]);
    await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(sdkAdapterLoaded()).toBe(true);
    expect(readLog(log).filter((e) => e.event === 'start')).toHaveLength(1);
  });
});
