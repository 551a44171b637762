import { describe, expect, it } from 'vitest';
import {
  MAX_TOOL_NAME,
  mcpToolName,
  serverToolNames,
} from '../../../../src/host/capabilities/mcp/tool-names.js';

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool> when the tool name is safe and short enough', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(mcpToolName('my-srv', 'get-thing')).toBe('mcp__my-srv__get-thing');
  });

  it('replace other characters and add a hash of the real name, so two names never collide', () => {
    const dotted = mcpToolName('docs', 'search.v2');
    const underscored = mcpToolName('docs', 'search_v2');
    expect(dotted).toMatch(/^mcp__docs__search_v2_[0-9a-f]{8}$/);
    expect(underscored).toBe('mcp__docs__search_v2');
    expect(mcpToolName('docs', 'a b/c\u00e9')).toMatch(/^mcp__docs__a_b_c__[0-9a-f]{8}$/);
  });

  it('are at most 64 characters, keeping the mcp__<server>__ prefix that rules match on', () => {
    const server = 'a'.repeat(40);
    for (const tool of ['x'.repeat(100), 'y'.repeat(64), 'z', 'w'.repeat(19), 'v'.repeat(20)]) {
      const name = mcpToolName(server, tool);
      expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
      expect(name.startsWith(`mcp__${server}__`)).toBe(true);
      expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    expect(mcpToolName('s', 'x'.repeat(100))).not.toBe(mcpToolName('s', `${'x'.repeat(99)}y`));
  });

  it('stay unique within a server even when the server lists odd duplicates', () => {
    const names = serverToolNames('s', ['a.b', 'a.b', 'a_b', 'echo']);
    expect(new Set(names).size).toBe(4);
    expect(names[2]).toBe('mcp__s__a_b');
    expect(names[3]).toBe('mcp__s__echo');
  });
});
