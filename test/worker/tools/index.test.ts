import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CadreError } from '../../../src/shared/errors.js';
import {
  BUILTIN_TOOLS,
  capResult,
  registerTool,
  runTool,
  toolDefinitionsFor,
} from '../../../src/worker/tools/index.js';
import { defineTool, toolText } from '../../../src/worker/tools/tool.js';
import { FakeProject } from './fake-capabilities.js';

describe('tool table', () => {
  it('gives Messages API tool params with plain object schemas and model-facing descriptions', () => {
    const defs = toolDefinitionsFor(['Read', 'Grep', 'mcp__github__search', 'Bash']);
    expect(defs.map((d) => d.name)).toEqual(['Read', 'Grep', 'Bash']);
    for (const def of toolDefinitionsFor(Object.keys(BUILTIN_TOOLS))) {
      expect(def.description.length).toBeGreaterThan(200);
      expect(def.input_schema.type).toBe('object');
      expect(def.input_schema).not.toHaveProperty('$schema');
      expect(Array.isArray(def.input_schema.required)).toBe(true);
      expect(JSON.stringify(def.input_schema)).not.toContain(String(Number.MAX_SAFE_INTEGER));
      const properties = def.input_schema.properties as Record<string, { description?: string }>;
      for (const [key, prop] of Object.entries(properties))
        expect(prop.description, `${def.name}.${key}`).toBeTruthy();
    }
    const read = defs[0]?.input_schema;
    expect(read?.required).toEqual(['file_path']);
    expect(read?.additionalProperties).toBe(false);
  });

  it('converts a tool input schema when first asked for, once', () => {
    const tool = defineTool({
      name: 'Probe',
      description: 'probe',
      input: z.strictObject({ a: z.string() }),
      descriptions: { a: 'the a' },
      run: () => Promise.resolve(toolText('')),
    });
    // An accessor, not a value converted when the module loaded.
    expect(Object.getOwnPropertyDescriptor(tool, 'inputSchema')?.get).toBeTypeOf('function');
    expect(tool.inputSchema).toBe(tool.inputSchema);
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'string', description: 'the a' } },
      required: ['a'],
    });
  });

  it('dispatches by name and names the bad field of invalid input', async () => {
    const project = new FakeProject({ 'a.txt': 'hi\n' });
    expect(await runTool('Read', { file_path: 'a.txt' }, project.context())).toEqual({
      content: '     1\thi',
      isError: false,
    });
    const bad = await runTool(
      'Edit',
      { file_path: 'a.txt', old_string: 'hi', new_string: 7 },
      project.context(),
    );
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/^invalid_input: Edit input: new_string: /);
    const extra = await runTool('Glob', { pattern: '*', recursive: true }, project.context());
    expect(extra.content).toContain('recursive');
  });

  it('answers an unknown tool and a stopping run with error results', async () => {
    const project = new FakeProject();
    expect(await runTool('Teleport', {}, project.context())).toEqual({
      content: 'not_granted: no tool named "Teleport" is available to this agent.',
      isError: true,
    });
    const controller = new AbortController();
    controller.abort();
    const stopped = await runTool(
      'Glob',
      { pattern: '*' },
      { ...project.context(), signal: controller.signal },
    );
    expect(stopped.isError).toBe(true);
    expect(project.calls).toHaveLength(0);
  });

  it('turns a thrown fault into an error result with its code', async () => {
    registerTool({
      name: 'Faulty',
      description: 'throws',
      inputSchema: { type: 'object', properties: {}, required: [] },
      run: () => Promise.reject(new CadreError('io_error', 'disk on fire')),
    });
    expect(await runTool('Faulty', {}, new FakeProject().context())).toEqual({
      content: 'io_error: Faulty failed: disk on fire',
      isError: true,
    });
    expect(toolDefinitionsFor(['Faulty'])).toEqual([
      {
        name: 'Faulty',
        description: 'throws',
        input_schema: { type: 'object', properties: {}, required: [] },
      },
    ]);
  });

  it('caps the result at maxToolResultChars with a truncation marker', async () => {
    const project = new FakeProject();
    project.exec = () => ({
      exitCode: 0,
      signal: null,
      stdout: 'y\n'.repeat(10_000),
      stderr: '',
      timedOut: false,
      truncated: false,
      sandbox: 'none',
      durationMs: 1,
    });
    const result = await runTool(
      'Bash',
      { command: 'yes | head -10000' },
      project.context({ maxToolResultChars: 1_000 }),
    );
    expect(result.content.length).toBeLessThanOrEqual(1_000);
    expect(result.content).toMatch(/\[output truncated: \d+ more characters not shown of \d+\]$/);
    expect(capResult('short', 1_000)).toBe('short');
  });
});
