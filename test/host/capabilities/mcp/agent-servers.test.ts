import { describe, expect, it } from 'vitest';
import { agentServers, serverOfPattern } from '../../../../src/host/capabilities/mcp/agent-servers.js';
import type { McpServerEntry } from '../../../../src/host/config/merge.js';

const configured: Record<string, McpServerEntry> = {
  github: {
    name: 'github',
    config: { type: 'stdio', command: 'gh-mcp' },
    scope: 'user',
    origin: '/h/.cadre/config.json',
  },
  docs: { name: 'docs', config: { type: 'http', url: 'http://d' }, scope: 'project', origin: '/p/.mcp.json' },
  off: { name: 'off', config: { type: 'stdio', command: 'x', disabled: true }, scope: 'user', origin: 'u' },
  broken: {
    name: 'broken',
    error: 'mcpServers.broken.oauth: cadre does not know this key',
    scope: 'project',
    origin: '/p/.mcp.json',
  },
};

const agent = (over: Record<string, unknown>) => ({
  name: 'a',
  source: 'project' as const,
  path: '/p/.cadre/agents/a.md',
  tools: ['Read'],
  ...over,
});

describe('which MCP servers an agent may use', () => {
  it('an agent with every tool gets every configured server whole; disabled ones stay off; broken ones are reported', () => {
    const found = agentServers(agent({ inheritsMcpTools: true }), configured);
    expect(found.servers.map((s) => [s.source.name, s.tools])).toEqual([
      ['github', 'all'],
      ['docs', 'all'],
    ]);
    expect(found.broken).toEqual([{ name: 'broken', error: expect.stringContaining('oauth') }]);
  });

  it('tools entries name servers and tools; mcpServers names whole servers; unknown names are reported', () => {
    const found = agentServers(
      agent({
        tools: ['Read', 'mcp__github__create_issue', 'mcp__github__get_*', 'mcp__nope__x'],
        mcpServers: [{ name: 'docs' }, { name: 'ghost' }],
      }),
      configured,
    );
    expect(found.servers.map((s) => [s.source.name, s.tools])).toEqual([
      ['github', ['mcp__github__create_issue', 'mcp__github__get_*']],
      ['docs', 'all'],
    ]);
    expect(found.missing).toEqual(['nope', 'ghost']);
  });

  it("an inline server is the agent's own: it replaces a configured one of the same name, with its agent file's scope", () => {
    const found = agentServers(
      agent({
        inheritsMcpTools: true,
        mcpServers: [{ name: 'github', inline: { type: 'stdio', command: 'mine' } }],
      }),
      configured,
    );
    const github = found.servers.find((s) => s.source.name === 'github');
    expect(github?.source).toEqual({
      name: 'github',
      config: { type: 'stdio', command: 'mine' },
      scope: 'project',
      origin: '/p/.cadre/agents/a.md',
      agent: 'a',
    });
    const user = agentServers(
      { ...agent({ mcpServers: [{ name: 'x', inline: { type: 'stdio', command: 'y' } }] }), source: 'user' },
      {},
    );
    expect(user.servers[0]?.source.scope).toBe('user');
  });

  it('reads the server of a tool pattern without guessing', () => {
    expect(serverOfPattern('mcp__github__create_issue')).toBe('github');
    expect(serverOfPattern('mcp__github__*')).toBe('github');
    expect(serverOfPattern('mcp__github')).toBe('github');
    expect(serverOfPattern('mcp__*')).toBeUndefined();
    expect(serverOfPattern('Read')).toBeUndefined();
  });
});
