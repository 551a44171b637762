// The one path from a tool call to its result: lookup among the offered tools, broken input refused,
// the real tools run over an in-memory project, faults and a stopping run answered as error
// results, and the text capped exactly once, also through the whole loop and the real SDK.
import { describe, expect, it } from 'vitest';
import { CadreError } from '../../../src/shared/errors.js';
import { DEFAULT_CAPS, type ModelConfig } from '../../../src/shared/run-spec.js';
import {
  runToolCall,
  toPendingCall,
  type PendingCall,
  type ToolCallContext,
} from '../../../src/worker/loop/tool-call.js';
import { buildToolSet, toolTable } from '../../../src/worker/tool-set.js';
import { BUILTIN_TOOLS } from '../../../src/worker/tools/index.js';
import type { Tool } from '../../../src/worker/tools/tool.js';
import { textReply, toolResults, toolUseReply } from '../../support/fake-anthropic.js';
import {
  drive,
  fakeModelConfig,
  hostedModelClient,
  makeSpec,
  ofType,
  useFakeServer,
} from '../models/loop-support.js';
import { FakeProject } from '../tools/fake-capabilities.js';

const faulty: Tool = {
  name: 'Faulty',
  description: 'throws',
  inputSchema: { type: 'object', properties: {}, required: [] },
  run: () => Promise.reject(new CadreError('io_error', 'disk on fire')),
};

/** The built-ins plus `extra`, over `project`, as the runner's context. */
function context(
  project: FakeProject,
  over: Partial<ToolCallContext> = {},
  extra: Tool[] = [],
): ToolCallContext {
  const table = toolTable([...Object.values(BUILTIN_TOOLS), ...extra], project.context());
  let clock = 100;
  return {
    run: (name, input) => table.run(name, input),
    signal: new AbortController().signal,
    now: () => (clock += 5),
    maxResultChars: DEFAULT_CAPS.maxToolResultChars,
    ...over,
  };
}

const call = (name: string, input: Record<string, unknown> = {}): PendingCall => ({ id: 't1', name, input });
const NOTE = /\n\.\.\. \[output truncated: \d+ more characters not shown of \d+\]$/;

describe('toPendingCall', () => {
  const offered = new Set(['Read', 'Grep']);

  it('takes an offered call with its input, and an input that is not an object as {}', () => {
    const block = { type: 'tool_use', id: 'a', name: 'Read', input: { file_path: 'x' } };
    expect(toPendingCall(block, undefined, offered)).toEqual({
      id: 'a',
      name: 'Read',
      input: { file_path: 'x' },
    });
    expect(toPendingCall({ ...block, input: 'x' }, undefined, offered).input).toEqual({});
    expect(toPendingCall({ ...block, input: null }, undefined, offered).input).toEqual({});
  });

  it('refuses a tool not offered, naming those that are', () => {
    const block = { type: 'tool_use', id: 'b', name: 'Bash', input: {} };
    expect(toPendingCall(block, undefined, offered).refusal).toBe(
      'not_granted: no tool named "Bash" is offered to this agent; available: Read, Grep.',
    );
    expect(toPendingCall(block, undefined, new Set()).refusal).toMatch(/available: none\.$/);
  });

  it('refuses input the stream could not parse, asking for the call again', () => {
    const block = { type: 'tool_use', id: 'c', name: 'Grep', input: {} };
    const use = {
      type: 'tool-use' as const,
      id: 'c',
      name: 'Grep',
      input: {},
      inputError: 'unterminated JSON',
    };
    expect(toPendingCall(block, use, offered).refusal).toMatch(
      /^invalid_input: unterminated JSON\. The call was not run .* send it again with complete input\.$/,
    );
  });
});

describe('runToolCall', () => {
  it('runs the real tool and names the bad field of invalid input', async () => {
    const project = new FakeProject({ 'a.txt': 'hi\n' });
    const ctx = context(project);
    expect(await runToolCall(call('Read', { file_path: 'a.txt' }), ctx)).toEqual({
      content: '     1\thi',
      isError: false,
      durationMs: 5,
    });
    const bad = await runToolCall(call('Edit', { file_path: 'a.txt', old_string: 'hi', new_string: 7 }), ctx);
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/^invalid_input: Edit input: new_string: /);
    const extra = await runToolCall(call('Glob', { pattern: '*', recursive: true }), ctx);
    expect(extra.content).toContain('recursive');
  });

  it('answers a refused call and a stopping run without running anything', async () => {
    const project = new FakeProject();
    const refused = { ...call('Glob', { pattern: '*' }), refusal: 'not_granted: no.' };
    expect(await runToolCall(refused, context(project))).toEqual({
      content: 'not_granted: no.',
      isError: true,
      durationMs: 0,
    });
    const controller = new AbortController();
    controller.abort();
    const stopped = await runToolCall(
      call('Glob', { pattern: '*' }),
      context(project, { signal: controller.signal }),
    );
    expect(stopped).toEqual({
      content: 'cancelled: Glob was not run because the run is stopping.',
      isError: true,
      durationMs: 0,
    });
    expect(project.calls).toHaveLength(0);
  });

  it('turns a thrown fault of a tool passed into the table into an error result with its code', async () => {
    const ctx = context(new FakeProject(), {}, [faulty]);
    expect(await runToolCall(call('Faulty'), ctx)).toMatchObject({
      content: 'io_error: Faulty failed: disk on fire',
      isError: true,
    });
    // A name the table does not hold fails closed, with the tools it does hold.
    const unknown = await runToolCall(call('Teleport'), ctx);
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toMatch(
      /^not_granted: Teleport failed: no tool named "Teleport"; available: Read, /,
    );
  });

  it('keeps images and reads a non-string result as text', async () => {
    const image = { mediaType: 'image/png' as const, data: 'AAAA' };
    const ctx = context(new FakeProject(), {
      run: () => Promise.resolve({ content: 42 as unknown as string, isError: false, images: [image] }),
    });
    expect(await runToolCall(call('Shot'), ctx)).toMatchObject({
      content: '42',
      isError: false,
      images: [image],
    });
  });

  it('caps a result past maxToolResultChars once, with one note', async () => {
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
    const result = await runToolCall(call('Bash', { command: 'yes | head -10000' }), {
      ...context(project),
      maxResultChars: 1_000,
    });
    expect(result.content).toHaveLength(1_000);
    expect(result.content).toMatch(NOTE);
    expect(result.content.match(/output truncated/g)).toHaveLength(1);
  });
});

describe('a tool result through the whole loop', () => {
  const fake = useFakeServer();
  const model = (): ModelConfig => fakeModelConfig(fake.server.url);

  it('reaches the model and the events capped exactly once', async () => {
    const project = new FakeProject();
    project.exec = () => ({
      exitCode: 0,
      signal: null,
      stdout: 'line of output\n'.repeat(4_000),
      stderr: '',
      timedOut: false,
      truncated: false,
      sandbox: 'none',
      durationMs: 1,
    });
    const spec = makeSpec({
      model: model(),
      tools: ['Bash'],
      caps: { ...DEFAULT_CAPS, maxToolResultChars: 1_500 },
    });
    const signal = new AbortController().signal;
    fake.server.enqueue(
      toolUseReply([{ id: 'b1', name: 'Bash', input: { command: 'cat big.log' } }]),
      textReply('done'),
    );
    const { events, result } = await drive({
      spec,
      client: hostedModelClient(spec.model),
      tools: buildToolSet(spec, project.caps(), signal),
      signal,
    });
    expect(result.status).toBe('completed');
    const [sent] = toolResults(fake.server.requests[1]!.body);
    const content = String(sent?.content);
    expect(content).toHaveLength(1_500);
    expect(content).toMatch(NOTE);
    expect(content.match(/output truncated/g)).toHaveLength(1);
    const [event] = ofType(events, 'tool-result');
    expect(event?.content.match(/output truncated/g)).toHaveLength(1);
  });
});
