// The built-in tools as a run's tool table offers them: Messages API definitions with plain
// object schemas and model-facing descriptions, converted lazily, looked up by own name only.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toolTable } from '../../../src/worker/tool-set.js';
import { BUILTIN_TOOLS, builtinTool } from '../../../src/worker/tools/index.js';
import { defineTool, toolText } from '../../../src/worker/tools/tool.js';
import { FakeProject } from './fake-capabilities.js';

describe('built-in tools', () => {
  it('gives Messages API tool params with plain object schemas and model-facing descriptions', () => {
    const ctx = new FakeProject().context();
    const defs = toolTable(
      ['Read', 'Grep', 'Bash'].map((n) => BUILTIN_TOOLS[n]!),
      ctx,
    ).definitions;
    expect(defs.map((d) => d.name)).toEqual(['Read', 'Grep', 'Bash']);
    for (const def of toolTable(Object.values(BUILTIN_TOOLS), ctx).definitions) {
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

  it('looks a built-in up by its own name only', () => {
    expect(builtinTool('Grep')).toBe(BUILTIN_TOOLS['Grep']);
    expect(builtinTool('mcp__github__search')).toBeUndefined();
    expect(builtinTool('constructor')).toBeUndefined();
    expect(builtinTool('toString')).toBeUndefined();
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
});
