import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MUTATING_TOOLS, ToolName } from '../../../src/shared/tools.js';
import { BUILTIN_AGENTS_DIR } from '../../../src/host/registry/agent-sources.js';
import { parseAgentFile } from '../../../src/host/registry/parse-agent.js';

async function builtin(name: string) {
  const file = path.join(BUILTIN_AGENTS_DIR, `${name}.md`);
  const result = parseAgentFile(file, await readFile(file, 'utf8'));
  expect(result.errors).toEqual([]);
  expect(result.warnings).toEqual([]);
  if (!result.agent) throw new Error(`${name} did not load`);
  return result.agent;
}

describe('built-in agents', () => {
  it('are exactly the six documented ones', async () => {
    expect((await readdir(BUILTIN_AGENTS_DIR)).sort()).toEqual([
      'bash.md',
      'code-reviewer.md',
      'explore.md',
      'general-purpose.md',
      'main.md',
      'plan.md',
    ]);
  });

  it.each(['general-purpose', 'explore', 'plan', 'bash', 'code-reviewer', 'main'])(
    '%s has a model alias, limits and a substantial prompt',
    async (name) => {
      const agent = await builtin(name);
      expect(['haiku', 'sonnet', 'opus', 'inherit']).toContain(agent.model);
      expect(agent.maxTurns).toBeGreaterThan(0);
      expect(agent.timeout).toBeGreaterThanOrEqual(120);
      expect(agent.prompt.length).toBeGreaterThan(1200);
      expect(agent.description.length).toBeGreaterThan(60);
    },
  );

  it('general-purpose has every tool', async () => {
    expect((await builtin('general-purpose')).tools).toEqual(ToolName.options);
  });

  it("main (the chat's main agent) has every tool, Task included, and a long turn", async () => {
    const main = await builtin('main');
    expect(main.tools).toEqual(ToolName.options);
    expect(main.tools).toContain('Task');
    expect(main.timeout).toBeGreaterThanOrEqual(1800);
    expect(main.prompt).toMatch(/list at the end of these instructions/);
  });

  it('explore is read-only and honours the thoroughness words', async () => {
    const explore = await builtin('explore');
    expect(explore.tools).toEqual(['Read', 'Glob', 'Grep', 'LS']);
    expect(explore.model).toBe('haiku');
    for (const word of ['quick', 'medium', 'very thorough']) expect(explore.prompt).toContain(`**${word}**`);
  });

  it('plan is read-only and asks for numbered steps with file paths', async () => {
    const plan = await builtin('plan');
    expect(plan.tools.some((t) => MUTATING_TOOLS.has(t))).toBe(false);
    expect(plan.permissionMode).toBe('plan');
    expect(plan.prompt).toMatch(/numbered list/);
    expect(plan.prompt).toMatch(/paths/);
  });

  it('bash has only Bash', async () => {
    expect((await builtin('bash')).tools).toEqual(['Bash']);
  });

  it('code-reviewer is read-only and reports severity-tagged findings with file:line', async () => {
    const reviewer = await builtin('code-reviewer');
    expect(reviewer.tools).toEqual(['Read', 'Glob', 'Grep', 'LS']);
    for (const severity of ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'])
      expect(reviewer.prompt).toContain(`**${severity}**`);
    expect(reviewer.prompt).toContain('path/to/file.ts:LINE');
  });
});
