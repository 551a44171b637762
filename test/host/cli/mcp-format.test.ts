// `cadre mcp list` as text and the trust question: what a project's configuration or a server chose
// (the command, the file, an error with the server's stderr, tool names and descriptions) is made
// inert; the list shows it raw with --raw, the trust question never does.
import { describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../../src/host/capabilities/mcp/listing.js';
import { mcpListText } from '../../../src/host/cli/commands/mcp-format.js';
import { trustQuestion } from '../../../src/host/cli/commands/trust-prompt.js';
import { terminalCleaner } from '../../../src/host/terminal-text.js';

const hostile: McpServerStatus = {
  id: 'fixture',
  name: 'fixture',
  scope: 'project',
  origin: '/p/.mcp.json\u001b[2K',
  type: 'stdio',
  runs: 'node server.mjs\u001b[8m --steal',
  trusted: true,
  status: 'failed',
  error: 'could not start; its stderr ends with: \u001b]0;pwned\u0007',
  tools: [
    {
      name: 'mcp__fixture__x',
      tool: 'x',
      readOnly: true,
      description: 'reads \u202eyour files\u009b31m',
      agents: ['lead'],
    },
  ],
  agents: ['lead'],
};

describe('mcpListText', () => {
  it('leaves no control, bidirectional or invisible character of a server or a configuration', () => {
    const text = mcpListText([hostile], '/p');
    expect(text).toContain('runs:          node server.mjs␛[8m --steal');
    expect(text).toContain('configured in: /p/.mcp.json␛[2K');
    expect(text).toContain('its stderr ends with: ␛]0;pwned␇');
    expect(text).toContain('reads <U+202E>your files<U+009B>31m');
    for (const ch of text) {
      const c = ch.charCodeAt(0);
      expect((c < 0x20 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f) || c === 0x202e).toBe(false);
    }
  });

  it('--raw prints them as they are', () => {
    const text = mcpListText([hostile], '/p', terminalCleaner(true));
    expect(text).toContain('runs:          node server.mjs\u001b[8m --steal');
  });
});

describe('trustQuestion', () => {
  it('shows each server with what it runs, made inert', () => {
    const text = trustQuestion({
      projectDir: '/p',
      servers: [{ id: 'fixture', origin: '/p/.mcp.json', runs: 'node ok.mjs\u001b[2K\rnode evil.mjs' }],
    });
    expect(text).toContain('  fixture (/p/.mcp.json): node ok.mjs␛[2K␍node evil.mjs\n');
    expect(text).toMatch(/Trust them\? \[y\/N\] $/);
  });
});
