import { describe, expect, it } from 'vitest';
import { PROFILES, ToolName } from '../../../src/shared/tools.js';
import { resolveTools, toolEntries } from '../../../src/host/registry/resolve-tools.js';

describe('resolveTools', () => {
  it('omitted tools inherit every built-in, with Task open to any type', () => {
    const r = resolveTools({});
    expect(r).toEqual({
      tools: ToolName.options,
      disallowedTools: [],
      allTools: true,
      errors: [],
      warnings: [],
    });
  });

  it('a comma string and a list give the same canonical order, without duplicates', () => {
    expect(resolveTools({ tools: 'Grep, Read, Grep' }).tools).toEqual(['Read', 'Grep']);
    expect(resolveTools({ tools: ['Grep', 'Read'] }).tools).toEqual(['Read', 'Grep']);
    expect(resolveTools({ tools: ['Grep, Read', 'LS'] }).tools).toEqual(['Read', 'Grep', 'LS']);
  });

  it('* grants every built-in', () => {
    expect(resolveTools({ tools: '*' }).tools).toEqual(ToolName.options);
    expect(resolveTools({ tools: '*' }).taskTypes).toBeUndefined();
  });

  it('Task(type, ...) keeps commas inside the parentheses and records the types', () => {
    const r = resolveTools({ tools: 'Read, Task(explore, code-reviewer), Grep' });
    expect(r.errors).toEqual([]);
    expect(r.tools).toEqual(['Read', 'Grep', 'Task']);
    expect(r.taskTypes).toEqual(['explore', 'code-reviewer']);
  });

  it('Task(a) beside a plain Task, Task(*) or a profile with Task means any type', () => {
    expect(resolveTools({ tools: 'Task(explore), Task' }).taskTypes).toBeUndefined();
    expect(resolveTools({ tools: 'Task(*)' }).taskTypes).toBeUndefined();
    expect(resolveTools({ tools: 'Task(explore)', profile: 'full-access' }).taskTypes).toBeUndefined();
    expect(resolveTools({ tools: 'Task(explore), Task(plan)' }).taskTypes).toEqual(['explore', 'plan']);
  });

  it('keeps mcp tools and server wildcards after the built-ins', () => {
    const r = resolveTools({ tools: 'mcp__github__*, Read, mcp__jira__create_issue' });
    expect(r.tools).toEqual(['Read', 'mcp__github__*', 'mcp__jira__create_issue']);
  });

  it('a profile expands; tools add to it', () => {
    expect(resolveTools({ profile: 'read-only' }).tools).toEqual([...PROFILES['read-only']]);
    expect(resolveTools({ profile: 'read-only', tools: 'Bash' }).tools).toEqual([
      'Read',
      'Glob',
      'Grep',
      'LS',
      'Bash',
    ]);
  });

  it('disallowedTools applies after tools and profile, including mcp wildcards and *', () => {
    expect(resolveTools({ disallowedTools: 'Bash, Write' }).tools).toEqual(
      ToolName.options.filter((t) => t !== 'Bash' && t !== 'Write'),
    );
    expect(
      resolveTools({ tools: 'Read, mcp__gh__a, mcp__gh__b, mcp__x__c', disallowedTools: 'mcp__gh__*' }).tools,
    ).toEqual(['Read', 'mcp__x__c']);
    expect(resolveTools({ tools: 'Read, Grep', disallowedTools: '*' }).errors).toEqual([
      { field: 'disallowedTools', message: 'leaves the agent with no tools; an agent needs at least one' },
    ]);
  });

  it('disallowing Task(type) narrows an explicit list, and is kept for the runtime when Task is open', () => {
    expect(resolveTools({ tools: 'Read, Task(a, b)', disallowedTools: 'Task(a)' }).taskTypes).toEqual(['b']);
    const closed = resolveTools({ tools: 'Read, Task(a)', disallowedTools: 'Task(a)' });
    expect(closed.tools).toEqual(['Read']);
    expect(closed.taskTypes).toBeUndefined();
    const open = resolveTools({ tools: 'Read, Task', disallowedTools: ['Task( a )'] });
    expect(open.tools).toEqual(['Read', 'Task']);
    // Kept in the spelling the runtime matches, whatever the spacing or Claude Code's name for it.
    expect(open.disallowedTools).toEqual(['Task(a)']);
    expect(resolveTools({ tools: 'Read, Task', disallowedTools: 'Agent(a, b)' }).disallowedTools).toEqual([
      'Task(a, b)',
    ]);
  });

  it('unknown names are errors with a hint, in either field', () => {
    expect(resolveTools({ tools: 'Read, Bsh' }).errors).toEqual([
      { field: 'tools', message: 'unknown tool "Bsh" (did you mean "Bash"?)' },
    ]);
    expect(resolveTools({ disallowedTools: 'Wirte' }).errors).toEqual([
      { field: 'disallowedTools', message: 'unknown tool "Wirte" (did you mean "Write"?)' },
    ]);
    expect(resolveTools({ tools: 'Task(Bad Type)' }).errors[0]?.message).toMatch(/invalid agent type/);
    expect(resolveTools({ tools: 'mcp__a__' }).errors[0]?.message).toMatch(/not an MCP tool name/);
    expect(resolveTools({ tools: 'mcp__' }).errors[0]?.message).toMatch(/not an MCP tool name/);
    expect(resolveTools({ tools: 'mcp__a b' }).errors[0]?.message).toMatch(/not an MCP tool name/);
  });

  it('mcp__server means every tool of that server, in tools and in disallowedTools', () => {
    expect(resolveTools({ tools: 'Read, mcp__github' }).tools).toEqual(['Read', 'mcp__github__*']);
    const denied = resolveTools({ disallowedTools: 'mcp__github' });
    expect(denied.disallowedTools).toEqual(['mcp__github__*']);
    expect(denied.errors).toEqual([]);
  });

  it('allTools marks "every tool" (omitted, *, full-access), which also brings every MCP server', () => {
    expect(resolveTools({}).allTools).toBe(true);
    expect(resolveTools({ tools: '*' }).allTools).toBe(true);
    expect(resolveTools({ profile: 'full-access' }).allTools).toBe(true);
    expect(resolveTools({ disallowedTools: 'Bash, mcp__x__*' }).allTools).toBe(true);
    expect(resolveTools({ tools: 'Read, mcp__x__*' }).allTools).toBe(false);
    expect(resolveTools({ profile: 'read-only' }).allTools).toBe(false);
    expect(resolveTools({ tools: '*', disallowedTools: '*' }).allTools).toBe(false);
  });

  it('an empty list is an error, not "inherit all"', () => {
    expect(resolveTools({ tools: [] }).errors).toEqual([
      { field: 'tools', message: 'is empty: omit the field to inherit every tool, or list at least one' },
    ]);
    expect(resolveTools({ tools: ' , ' }).errors[0]?.field).toBe('tools');
  });
});

describe('toolEntries', () => {
  it('splits strings and list items alike', () => {
    expect(toolEntries(undefined)).toEqual([]);
    expect(toolEntries('Read,Task(a, b) ,  LS')).toEqual(['Read', 'Task(a, b)', 'LS']);
    expect(toolEntries(['Read', 'Task(a, b)'])).toEqual(['Read', 'Task(a, b)']);
  });
});
