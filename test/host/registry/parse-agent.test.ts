import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolName } from '../../../src/shared/tools.js';
import { parseAgentEntry, parseAgentFile } from '../../../src/host/registry/parse-agent.js';
import { FIXTURES } from './temp-dirs.js';
import { cpuMs } from '../../support/cpu-time.js';

async function parseFixture(rel: string) {
  const file = path.join(FIXTURES, rel);
  return { file, result: parseAgentFile(file, await readFile(file, 'utf8')) };
}

describe('parseAgentFile: good files', () => {
  it('parses a comma list of tools, the model and the body as the prompt', async () => {
    const { file, result } = await parseFixture('good/reviewer.md');
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.agent).toMatchObject({
      name: 'reviewer',
      description: 'Reviews code for bugs. Use after every change.',
      tools: ['Read', 'Glob', 'Grep'],
      model: 'sonnet',
      prompt: 'You review code. Report findings as `file:line`.',
      timeout: 300,
      idleTimeout: 120,
      maxDepth: 0,
      exposeAsTool: false,
    });
    expect(file).toContain('reviewer.md');
  });

  it('parses a YAML list with Task(types), mcp tools and disallowedTools', async () => {
    const { result } = await parseFixture('good/list-tools.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.tools).toEqual(['Read', 'Task', 'mcp__github__*', 'mcp__jira__create_issue']);
    expect(result.agent?.taskTypes).toEqual(['explore', 'code-reviewer']);
    expect(result.agent?.disallowedTools).toEqual(['mcp__github__delete_repo']);
    expect(result.agent?.maxDepth).toBe(1);
  });

  it('expands a profile, applies disallowedTools after it, and keeps every limit', async () => {
    const { result } = await parseFixture('good/profile-writer.md');
    expect(result.errors).toEqual([]);
    expect(result.agent).toMatchObject({
      tools: ['Read', 'Write', 'Glob', 'Grep', 'LS', 'TodoWrite', 'TodoRead'],
      disallowedTools: ['Edit'],
      timeout: 120,
      idleTimeout: 30,
      maxTurns: 12,
      permissionMode: 'acceptEdits',
      tokenBudget: 50000,
      color: 'green',
    });
  });

  it('loads Claude Code fields cadre does not implement with an "ignored" warning each', async () => {
    const { file, result } = await parseFixture('good/claude-fields.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.tools).toEqual(['Read']);
    expect(result.warnings.map((w) => w.field)).toEqual(['skills', 'hooks', 'memory']);
    expect(result.warnings[0]).toMatchObject({ path: file, line: 5 });
    for (const w of result.warnings) expect(w.message).toMatch(/ignored/);
  });

  it('keeps {{task}}, output, input and exposeAsTool', async () => {
    const { result } = await parseFixture('good/placeholder.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.prompt).toBe('Answer this: {{task}}\n\nBe brief.');
    expect(result.agent?.output).toBe('handoff');
    expect(result.agent?.exposeAsTool).toBe(true);
    expect(result.agent?.input).toEqual({ type: 'object', properties: { query: { type: 'string' } } });
  });

  it('takes the name from the name field, whatever the file is called, without a warning', async () => {
    const { result } = await parseFixture('good/renamed-file.md');
    expect(result.errors).toEqual([]);
    expect(result.agent?.name).toBe('not-the-file-name');
    expect(result.warnings).toEqual([]);
  });

  it('gives an agent with no tools field every built-in tool', () => {
    const result = parseAgentFile('/x/all.md', '---\nname: all\ndescription: d\n---\nhi');
    expect(result.agent?.tools).toEqual(ToolName.options);
    expect(result.agent?.taskTypes).toBeUndefined();
  });

  it('accepts CRLF line endings, a BOM and a ---yaml fence', () => {
    const crlf = parseAgentFile(
      '/x/a.md',
      '\uFEFF---yaml\r\nname: a\r\ndescription: d\r\ntools: Read\r\n---\r\nPrompt\r\n',
    );
    expect(crlf.errors).toEqual([]);
    expect(crlf.agent).toMatchObject({ name: 'a', description: 'd', tools: ['Read'], prompt: 'Prompt' });
  });
});

describe('parseAgentFile: bad files give a clear error naming file, line and field', () => {
  const cases: [string, { field?: string; line?: number; message: RegExp }][] = [
    ['malformed-yaml.md', { line: 4, message: /invalid YAML: Flow sequence/ }],
    ['missing-name.md', { field: 'name', message: /is required/ }],
    ['missing-description.md', { field: 'description', message: /is required/ }],
    ['bad-name.md', { field: 'name', line: 2, message: /no spaces, ":", "\/" or "\\"/ }],
    [
      'unknown-tool.md',
      { field: 'tools', line: 4, message: /unknown tool "Grpe" \(did you mean "Grep"\?\)/ },
    ],
    ['typo-key.md', { field: 'allowed-tools', line: 4, message: /unknown field \(did you mean "tools"\?\)/ }],
    ['unknown-key.md', { field: 'modle', line: 5, message: /unknown field \(did you mean "model"\?\)/ }],
    ['only-dashes.md', { line: 1, message: /front matter is not closed/ }],
    ['unclosed.md', { line: 1, message: /front matter is not closed/ }],
    [
      'js-frontmatter.md',
      {
        line: 1,
        message: /front matter language "js" is not supported \(YAML only\); this file was not evaluated/,
      },
    ],
    ['custom-tag.md', { line: 4, message: /custom YAML tags are not supported/ }],
    ['empty-tools.md', { field: 'tools', message: /is empty/ }],
    ['all-disallowed.md', { field: 'disallowedTools', message: /no tools/ }],
    ['prompt-twice.md', { field: 'prompt', message: /set twice/ }],
  ];
  it.each(cases)('%s', async (name, expected) => {
    const { file, result } = await parseFixture(`bad/${name}`);
    expect(result.agent).toBeUndefined();
    const match = result.errors.find((e) => expected.message.test(e.message));
    expect(match, JSON.stringify(result.errors)).toBeDefined();
    expect(match?.path).toBe(file);
    if (expected.field) expect(match?.field).toBe(expected.field);
    if (expected.line) expect(match?.line).toBe(expected.line);
  });

  it('reports every wrong type in one pass', async () => {
    const { result } = await parseFixture('bad/wrong-types.md');
    expect(result.agent).toBeUndefined();
    const byField = Object.fromEntries(result.errors.map((e) => [e.field, e.message]));
    expect(Object.keys(byField).sort()).toEqual(['exposeAsTool', 'maxTurns', 'timeout', 'tools']);
    expect(byField.tools).toMatch(/comma-separated string or a list/);
    expect(byField.timeout).toBe('must be a number (got text "fast")');
    expect(byField.maxTurns).toMatch(/must be a whole number/);
    expect(byField.exposeAsTool).toMatch(/must be true or false/);
    expect(result.errors.find((e) => e.field === 'timeout')?.line).toBe(6);
  });

  it('a typo in the tools key never loads the agent with every tool', async () => {
    const { result } = await parseFixture('bad/typo-key.md');
    expect(result.agent).toBeUndefined();
    expect(result.name).toBe('typo-key');
  });

  it('refuses binary garbage', () => {
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString('utf8');
    const result = parseAgentFile('/x/garbage.md', garbage);
    expect(result.agent).toBeUndefined();
    expect(result.errors).toEqual([{ path: '/x/garbage.md', message: expect.stringMatching(/binary file/) }]);
  });

  it('loads a 1 MB prompt, with a warning about its size', () => {
    const prompt = 'Be thorough. '.repeat(80_000);
    const result = parseAgentFile(
      '/x/huge.md',
      `---\nname: huge\ndescription: d\ntools: Read\n---\n${prompt}`,
    );
    expect(result.errors).toEqual([]);
    expect(result.agent?.prompt.length).toBe(prompt.trim().length);
    expect(result.warnings[0]?.message).toMatch(/system prompt is \d+ KiB/);
  });

  it('refuses a file over the size cap', () => {
    const result = parseAgentFile(
      '/x/too-big.md',
      `---\nname: big\ndescription: d\n---\n${'x'.repeat(5 * 1024 * 1024)}`,
    );
    expect(result.errors[0]?.message).toMatch(/larger than 4 MiB/);
  });

  it('rejects front matter that is a list or a scalar', () => {
    expect(parseAgentFile('/x/l.md', '---\n- a\n- b\n---\n').errors[0]?.message).toMatch(
      /must be "key: value" fields/,
    );
    expect(parseAgentFile('/x/s.md', '---\njust text\n---\n').errors[0]?.message).toMatch(
      /must be "key: value" fields/,
    );
  });

  it('an empty front matter block names both required fields', () => {
    const result = parseAgentFile('/x/e.md', '---\n---\nbody');
    expect(result.errors.map((e) => e.field).sort()).toEqual(['description', 'name']);
  });

  it('catches a misspelt model alias and a model with spaces', () => {
    expect(
      parseAgentFile('/x/m.md', '---\nname: m\ndescription: d\nmodel: sonet\n---\n').errors[0],
    ).toMatchObject({
      field: 'model',
      message: expect.stringMatching(/did you mean "sonnet"/),
    });
    expect(
      parseAgentFile('/x/m.md', '---\nname: m\ndescription: d\nmodel: claude sonnet\n---\n').errors[0]?.field,
    ).toBe('model');
    expect(
      parseAgentFile('/x/m.md', '---\nname: m\ndescription: d\nmodel: ollama:qwen2.5:7b\n---\n').agent?.model,
    ).toBe('ollama:qwen2.5:7b');
  });

  it('rejects duplicate keys and YAML alias bombs without hanging', () => {
    expect(
      parseAgentFile('/x/d.md', '---\nname: d\nname: e\ndescription: x\n---\n').errors[0]?.message,
    ).toMatch(/unique/);
    // An alias bomb in a tool list: the quote retry never rewrites a tools line, so it stays refused.
    const toolsBomb = parseAgentFile('/x/t.md', '---\nname: t\ndescription: d\ntools: &a [*b, *b]\n---\n');
    expect(toolsBomb.agent).toBeUndefined();
    expect(toolsBomb.errors[0]?.message).toMatch(/invalid YAML/);
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    // Elsewhere, as Claude Code reads it, the quote retry turns the anchors and aliases into plain
    // text: nothing is expanded, and the agent loads with a warning for every metadata key.
    const started = cpuMs();
    const result = parseAgentFile(
      '/x/bomb.md',
      `---\nname: bomb\ndescription: d\ntools: Read\n${bomb}\n---\n`,
    );
    expect(cpuMs() - started).toBeLessThan(2000);
    expect(result.errors).toEqual([]);
    expect(result.agent?.tools).toEqual(['Read']);
    expect(result.warnings[0]?.message).toMatch(
      /front matter is not valid YAML .*read as Claude Code reads it/,
    );
    expect(result.warnings.filter((w) => w.message === 'unknown field; ignored').map((w) => w.field)).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'],
    );
  });
});

describe('parseAgentEntry (config.json and --agents)', () => {
  it('uses the key as the name and `prompt` as the system prompt', () => {
    const result = parseAgentEntry(
      'helper',
      { description: 'Helps', prompt: 'You help.', tools: ['Read', 'Glob'], model: 'haiku' },
      '/p/.cadre/config.json',
    );
    expect(result.errors).toEqual([]);
    expect(result.agent).toMatchObject({
      name: 'helper',
      prompt: 'You help.',
      tools: ['Read', 'Glob'],
      model: 'haiku',
    });
  });

  it('names the entry in field paths, and refuses unknown keys', () => {
    const result = parseAgentEntry(
      'helper',
      { description: 'Helps', allowedTools: ['Read'] },
      '/p/.cadre/config.json',
    );
    expect(result.agent).toBeUndefined();
    expect(result.errors).toEqual([
      {
        path: '/p/.cadre/config.json',
        field: 'agents.helper.allowedTools',
        message: 'unknown field (did you mean "tools"?)',
      },
    ]);
  });

  it('keys that exist on Object.prototype are plain unknown fields', () => {
    const result = parseAgentEntry('p', { description: 'd', constructor: 1, toString: 2 }, 'f');
    expect(result.errors.map((e) => e.message)).toEqual(['unknown field', 'unknown field']);
    const file = parseAgentFile(
      '/x/p.md',
      '---\nname: p\ndescription: d\n__proto__: { tools: "*" }\n---\nBody',
    );
    expect(file.agent).toBeUndefined();
    expect(file.errors[0]).toMatchObject({ field: '__proto__', line: 4 });
  });

  it('rejects a non-object entry, a name that contradicts the key, and an invalid key', () => {
    expect(parseAgentEntry('a', 'text', '--agents', { fieldPrefix: 'a' }).errors[0]).toMatchObject({
      path: '--agents',
      field: 'a',
    });
    expect(parseAgentEntry('a', { name: 'b', description: 'd' }, 'f').errors[0]?.message).toMatch(
      /differs from its key "a"/,
    );
    expect(parseAgentEntry('Bad Name', { description: 'd' }, 'f').errors[0]?.field).toBe(
      'agents.Bad Name.name',
    );
  });

  it('warns when an entry has no prompt', () => {
    const result = parseAgentEntry('quiet', { description: 'd', tools: 'Read' }, 'f');
    expect(result.agent?.prompt).toBe('');
    expect(result.warnings[0]).toMatchObject({
      field: 'agents.quiet.prompt',
      message: expect.stringMatching(/no system prompt/),
    });
  });
});
