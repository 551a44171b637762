// The offline model driving the real agent loop and the real worker tools (Glob, Grep, Read)
// over a real temp directory: it plans real searches and writes a deterministic report with
// file:line references, whatever subset of tools it is given.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CAPS } from '../../../src/shared/run-spec.js';
import type { LoopTools } from '../../../src/worker/agent-loop.js';
import { createOfflineClient, OFFLINE_NOTICE } from '../../../src/worker/models/offline.js';
import { toolTable } from '../../../src/worker/tool-set.js';
import { builtinTool } from '../../../src/worker/tools/index.js';
import type { Tool } from '../../../src/worker/tools/tool.js';
import { fsCapabilities } from './fs-capabilities.js';
import { drive, makeSpec, ofType } from './loop-support.js';

let root: string;

const FILES: Record<string, string> = {
  'src/agent-loop.ts': [
    '// The loop.',
    "import { helper } from './helper.js';",
    '',
    'export async function* runAgentLoop(deps) {',
    '  let turns = 0;',
    '  if (turns >= deps.spec.maxTurns) return;',
    '}',
  ].join('\n'),
  'src/helper.ts': 'export function helper() {\n  return 42;\n}\n',
  'src/config/limits.ts': 'export const DEFAULT_MAX_TURNS = 25;\n// maxTurns comes from the agent file.\n',
  'README.md': '# Demo\n\nCall runAgentLoop to run an agent.\n',
  'docs/notes.txt': 'Nothing relevant here.\n',
};

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'cadre-offline-'));
  for (const [rel, content] of Object.entries(FILES)) {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), content);
  }
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** The real tools over the temp directory, limited to `names`. */
function realTools(names: string[], dir = root): LoopTools & { calls: string[] } {
  const calls: string[] = [];
  const ctx = { caps: fsCapabilities(dir), cwd: dir, limits: DEFAULT_CAPS, readState: new Map() };
  const table = toolTable(
    names.map((n) => builtinTool(n)).filter((t): t is Tool => t !== undefined),
    ctx,
  );
  return {
    calls,
    definitions: table.definitions,
    run: (name, input) => {
      calls.push(name);
      return table.run(name, input);
    },
  };
}

const offlineRun = (prompt: string, tools: LoopTools) =>
  drive({ spec: makeSpec({ prompt, system: 'You explore code.' }), client: createOfflineClient(), tools });

describe('offline model', () => {
  it('searches with the real tools and leads with a ranked answer of real file:line references', async () => {
    const tools = realTools(['Glob', 'Grep', 'Read']);
    const { events, result } = await offlineRun(
      'Where is `runAgentLoop` defined and how is maxTurns enforced?',
      tools,
    );
    expect(result.status).toBe('completed');
    // Discovery, the words (the names it gives are in two source files only), reads, report.
    expect(result.turns).toBe(4);
    const firstLine = result.result.split('\n')[0] ?? '';
    expect(firstLine).toBe(OFFLINE_NOTICE);
    expect(firstLine).toContain('no API key configured');
    expect(firstLine).toContain('export ANTHROPIC_API_KEY=');
    expect(firstLine).toContain('ANTHROPIC_BASE_URL');
    expect(firstLine).toContain('--model');
    // The answer comes first, then the evidence; every line number is the real one.
    expect(result.result).toContain(
      'Most likely: `src/agent-loop.ts:4` — defines `runAgentLoop`: `export async function* runAgentLoop(deps) {`',
    );
    expect(result.result.indexOf('Most likely:')).toBeLessThan(result.result.indexOf('## Evidence'));
    expect(result.result).toContain('- `src/agent-loop.ts:6`: `if (turns >= deps.spec.maxTurns) return;`');
    expect(result.result).toMatch(
      /`src\/config\/limits\.ts:2` — .*`\/\/ maxTurns comes from the agent file\.`/,
    );
    // Documentation is not searched unless the question asks about it.
    expect(result.result).not.toContain('README.md:');
    expect(result.result).not.toContain('docs/notes.txt:');
    // Turn 1 discovers (definition-shaped lines, a count of the lines that mention a name), turn 2
    // counts the plain words, turn 3 reads the best candidates to confirm.
    const calls = ofType(events, 'tool-call');
    const greps = calls.filter((c) => c.name === 'Grep').map((c) => c.input as { output_mode?: string });
    expect(greps.map((g) => g.output_mode)).toEqual(['content', 'count', 'count']);
    expect(greps[0]).toMatchObject({ '-n': true, '-i': true });
    const reads = calls
      .filter((c) => c.name === 'Read')
      .map((c) => (c.input as { file_path: string }).file_path);
    expect(reads).toContain('src/agent-loop.ts');
    expect(reads).not.toContain('docs/notes.txt');
    expect(ofType(events, 'tool-result').every((r) => !r.isError)).toBe(true);
    expect(ofType(events, 'text-delta').length).toBeGreaterThan(3);
  });

  it('reads the one file that holds a quoted message and cites the message, however many files its words find', async () => {
    // Eight files define and throw errors, more than a medium run reads; one file, defining
    // nothing the question names, holds the message itself.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cadre-offline-quoted-'));
    try {
      await fs.mkdir(path.join(dir, 'src', 'errors'), { recursive: true });
      for (let i = 1; i <= 8; i++) {
        const body = [
          `export function error${i}(error: Error): never {`,
          '  // where an error is thrown: here, with the error the caller gives',
          '  throw error;',
          '}',
        ];
        await fs.writeFile(path.join(dir, 'src', 'errors', `error-${i}.ts`), body.join('\n'));
      }
      // A local variable named like a question word sits right above the message: the citation is
      // the message's line, not that definition.
      const check = [
        'export function check(value: unknown): unknown[] {',
        '  const errors = [value];',
        '  if (value === undefined) {',
        "    throw new TypeError('Invalid argument; expected a widget');",
        '  }',
        '  return errors;',
        '}',
      ];
      await fs.writeFile(path.join(dir, 'src', 'check.ts'), check.join('\n'));
      const { result } = await offlineRun(
        "where is the error 'Invalid argument; expected a widget' thrown?",
        realTools(['Glob', 'Grep', 'Read'], dir),
      );
      expect(result.result).toMatch(/Most likely: `src\/check\.ts:4` — /);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('searches the documentation when the question asks about it', async () => {
    const { result } = await offlineRun(
      'Where is runAgentLoop documented?',
      realTools(['Glob', 'Grep', 'Read']),
    );
    expect(result.result).toMatch(/`README\.md:3` — .*: `Call runAgentLoop to run an agent\.`/);
  });

  it('lists the top directory first when it has LS, and searches the source directory it finds', async () => {
    const tools = realTools(['Glob', 'Grep', 'Read', 'LS']);
    const { events, result } = await offlineRun('Where is `runAgentLoop` defined?', tools);
    const calls = ofType(events, 'tool-call');
    expect(calls[0]).toMatchObject({ name: 'LS', input: { path: '.' } });
    expect(calls.find((c) => c.name === 'Grep')?.input).toMatchObject({
      output_mode: 'content',
      path: 'src',
    });
    expect(result.result).toContain('Most likely: `src/agent-loop.ts:4` — defines `runAgentLoop`');
  });

  it('labels its usage as estimated', async () => {
    const { events, result } = await offlineRun('find helper', realTools(['Glob', 'Grep', 'Read']));
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
    expect(ofType(events, 'notice').map((n) => n.message)).toEqual([expect.stringContaining('estimates')]);
    expect(result.result).toContain('estimates (characters ÷ 4)');
  });

  it('is deterministic: the same files give the same report, whatever their modification times', async () => {
    const task = 'How does `helper` relate to runAgentLoop?';
    const a = await offlineRun(task, realTools(['Glob', 'Grep', 'Read']));
    // Newest-first listings change order when the times change: the report must not.
    const future = new Date(Date.now() + 60_000);
    await fs.utimes(path.join(root, 'docs/notes.txt'), future, future);
    await fs.utimes(path.join(root, 'src/helper.ts'), new Date(0), new Date(0));
    const b = await offlineRun(task, realTools(['Glob', 'Grep', 'Read']));
    expect(b.result.result).toBe(a.result.result);
    expect(b.result.usage).toEqual(a.result.usage);
  });

  it('scales how many files it reads with the thoroughness asked for', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cadre-offline-many-'));
    try {
      // Two files in each of seven directories: no directory is a family of look-alikes that
      // would be read only in part.
      for (let i = 0; i < 14; i++) {
        const sub = path.join(dir, `part-${Math.floor(i / 2)}`);
        await fs.mkdir(sub, { recursive: true });
        await fs.writeFile(
          path.join(sub, `widget-${String(i).padStart(2, '0')}.ts`),
          `export const widgetCount = ${i};\n`,
        );
      }
      const reads = async (prompt: string) => {
        const tools = realTools(['Glob', 'Grep', 'Read'], dir);
        await offlineRun(prompt, tools);
        return tools.calls.filter((c) => c === 'Read').length;
      };
      const quick = await reads('quick: where is widgetCount set?');
      const medium = await reads('where is widgetCount set?');
      const thorough = await reads('very thorough: where is widgetCount set?');
      expect([quick, medium, thorough]).toEqual([3, 6, 12]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('works without Grep: Glob finds files by name, Read supplies the lines', async () => {
    const tools = realTools(['Glob', 'Read']);
    const { events, result } = await offlineRun('What does helper.ts export?', tools);
    expect(result.status).toBe('completed');
    expect(tools.calls).not.toContain('Grep');
    const calls = ofType(events, 'tool-call');
    expect(calls.map((c) => c.name)).toContain('Glob');
    expect(
      calls.filter((c) => c.name === 'Read').map((c) => (c.input as { file_path: string }).file_path),
    ).toEqual(['src/helper.ts']);
    expect(result.result).toContain('Most likely: `src/helper.ts:1`');
    expect(result.result).toContain('`export function helper() {`');
  });

  it('reports without searching when it has no tools', async () => {
    const tools = realTools([]);
    const { result } = await offlineRun('Where is runAgentLoop?', tools);
    expect(result).toMatchObject({ status: 'completed', turns: 1, toolCalls: 0 });
    expect(result.result.split('\n')[0]).toBe(OFFLINE_NOTICE);
    expect(result.result).toContain('nothing was searched');
  });

  it('writes its report at once when the host asks for the grace turn', async () => {
    let turn = 0;
    const tools = realTools(['Glob', 'Grep', 'Read']);
    const { result } = await drive({
      spec: makeSpec({ prompt: 'Where is runAgentLoop?' }),
      client: createOfflineClient(),
      tools,
      grace: { requested: () => ++turn > 1, message: () => 'Time is almost up.' },
    });
    expect(result).toMatchObject({ status: 'completed', turns: 2 });
    expect(result.result).toContain('Searched for: `runAgentLoop`');
    // What turn 1 found made it into the report, marked as not read.
    expect(result.result).toContain(
      'Most likely: `src/agent-loop.ts:4` — defines `runAgentLoop` (not read): `export async function* runAgentLoop(deps) {`',
    );
  });
});
