// MCP tools in the worker: offered from the host's definitions, run through mcp.call only, their
// images carried into the tool_result as image blocks, read-only ones safe to run in parallel.
import { describe, expect, it } from 'vitest';
import type { GrantedCapabilities, McpCallRequest } from '../../../src/shared/capabilities.js';
import type { AgentEvent } from '../../../src/shared/events.js';
import { runToolCalls } from '../../../src/worker/loop/run-tools.js';
import { buildToolSet } from '../../../src/worker/tool-set.js';
import { makeSpec } from '../models/loop-support.js';

const schema = { type: 'object', properties: { text: { type: 'string' } } };

function setup(answer: (req: McpCallRequest) => unknown) {
  const calls: McpCallRequest[] = [];
  const caps = {
    'mcp.call': async (req: McpCallRequest) => {
      calls.push(req);
      return answer(req);
    },
  } as unknown as GrantedCapabilities;
  const spec = makeSpec({
    tools: ['Read'],
    extraTools: [
      { name: 'mcp__s__echo', description: 'echo', input_schema: schema, kind: 'mcp', readOnly: true },
      { name: 'mcp__s__write', description: 'write', input_schema: schema, kind: 'mcp' },
    ],
  });
  return { calls, tools: buildToolSet(spec, caps, new AbortController().signal) };
}

describe('MCP tools in the worker', () => {
  it("are offered with the host's definitions and call mcp.call with the model's input", async () => {
    const { calls, tools } = setup(() => ({
      ok: true,
      value: { content: 'hi', isError: false, truncated: false },
    }));
    expect(tools.definitions.map((d) => d.name)).toEqual(['Read', 'mcp__s__echo', 'mcp__s__write']);
    expect(tools.definitions[1]?.input_schema).toEqual(schema);
    expect(await tools.run('mcp__s__echo', { text: 'x' })).toEqual({ content: 'hi', isError: false });
    expect(await tools.run('mcp__s__echo', 'not an object')).toEqual({ content: 'hi', isError: false });
    expect(calls).toEqual([
      { tool: 'mcp__s__echo', input: { text: 'x' } },
      { tool: 'mcp__s__echo', input: {} },
    ]);
    expect(tools.isReadOnlyMcp('mcp__s__echo')).toBe(true);
    expect(tools.isReadOnlyMcp('mcp__s__write')).toBe(false);
  });

  it('a refused call is an error result with its code', async () => {
    const { tools } = setup(() => ({
      ok: false,
      error: { code: 'approval_denied', message: 'needs approval' },
    }));
    expect(await tools.run('mcp__s__write', {})).toEqual({
      content: 'approval_denied: needs approval',
      isError: true,
    });
  });

  it('images become image blocks after the text in the tool_result', async () => {
    const { tools } = setup(() => ({
      ok: true,
      value: {
        content: 'pic',
        isError: false,
        truncated: false,
        images: [{ mediaType: 'image/png', data: 'AAAA' }],
      },
    }));
    const gen = runToolCalls([{ id: 't1', name: 'mcp__s__echo', input: {} }], {
      run: (name, input) => tools.run(name, input),
      isConcurrencySafe: () => true,
      signal: new AbortController().signal,
      now: () => 0,
      maxResultChars: 1000,
      event: (body) => ({ ...body, agentId: 'a', depth: 0, at: 0 }) as AgentEvent,
    });
    let step = await gen.next();
    while (!step.done) step = await gen.next();
    expect(step.value).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: [
          { type: 'text', text: 'pic' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
    ]);
  });
});
