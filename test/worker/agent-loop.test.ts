// The agent loop driven by the real Anthropic SDK against the loopback fake Messages API:
// turns, tools (parallel and ordered), stop reasons, the grace turn, usage, and the
// message-append events that rebuild the conversation. Failure paths: agent-loop-errors.test.ts.
import { describe, expect, it } from 'vitest';
import {
  messageReply,
  textReply,
  toolResults,
  toolUseReply,
  type RequestBlock,
} from '../support/fake-anthropic.js';
import { CONTINUE_MESSAGE, DEFAULT_GRACE_MESSAGE } from '../../src/worker/agent-loop.js';
import type { ModelConfig } from '../../src/shared/run-spec.js';
import {
  drive,
  fakeModelConfig,
  fakeTools,
  makeSpec,
  ofType,
  sleep,
  useFakeServer,
  hostedModelClient,
} from './models/loop-support.js';

const fake = useFakeServer();

const client = (over: Partial<ModelConfig> = {}) => hostedModelClient(fakeModelConfig(fake.server.url, over));
const specFor = (over: Parameters<typeof makeSpec>[0] = {}) =>
  makeSpec({ model: fakeModelConfig(fake.server.url), ...over });
const readTool = () =>
  fakeTools({ Read: (input) => ({ content: `contents of ${String(input['file_path'])}`, isError: false }) });

describe('runAgentLoop with the real SDK', () => {
  it('streams a text reply and completes with its text', async () => {
    fake.server.enqueue(
      textReply('Hello from the model.', { usage: { input_tokens: 12, output_tokens: 5 } }),
    );
    const { events, result } = await drive({
      spec: specFor({ parentId: 'lead-1', depth: 1 }),
      client: client(),
    });
    expect(result).toMatchObject({
      status: 'completed',
      result: 'Hello from the model.',
      turns: 1,
      toolCalls: 0,
    });
    expect(result.usage).toEqual({
      input_tokens: 12,
      output_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(
      ofType(events, 'text-delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('Hello from the model.');
    expect(ofType(events, 'turn-end')).toMatchObject([{ turn: 1, stopReason: 'end_turn' }]);
    for (const e of events)
      expect(e).toMatchObject({ agentId: 'agent-1', parentId: 'lead-1', depth: 1, at: expect.any(Number) });
    const [req] = fake.server.requests;
    expect(req?.body.system).toBe('You are a test agent.');
    expect(req?.body.messages).toEqual([{ role: 'user', content: 'Do the thing.' }]);
    expect(req?.body.tools).toBeUndefined();
    expect(req?.sampling).toEqual({ temperature: false, top_p: false, top_k: false });
    expect(req?.auth.key).toBe('sk-test-key');
    expect(req?.body.model).toBe('claude-test-1');
  });

  it('runs a tool_use round trip and sends the result back', async () => {
    fake.server.enqueue(
      toolUseReply([{ id: 'toolu_1', name: 'Read', input: { file_path: 'src/a.ts' } }], { text: 'Reading.' }),
      textReply('The file says hello.'),
    );
    const tools = readTool();
    const { events, result } = await drive({ spec: specFor(), client: client(), tools });
    expect(result).toMatchObject({
      status: 'completed',
      result: 'The file says hello.',
      turns: 2,
      toolCalls: 1,
    });
    expect(tools.log.map((l) => l.input)).toEqual([{ file_path: 'src/a.ts' }]);
    expect(ofType(events, 'tool-call')).toMatchObject([
      { toolUseId: 'toolu_1', name: 'Read', input: { file_path: 'src/a.ts' } },
    ]);
    expect(ofType(events, 'tool-result')).toMatchObject([
      { toolUseId: 'toolu_1', isError: false, content: 'contents of src/a.ts' },
    ]);
    const second = fake.server.requests[1]?.body;
    expect(second?.tools?.map((t) => t.name)).toEqual(['Read']);
    expect(toolResults(second!)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'contents of src/a.ts' },
    ]);
  });

  it('runs concurrency-safe tools in parallel and keeps the results in call order', async () => {
    const calls = ['a', 'b', 'c'].map((f, i) => ({
      id: `toolu_p${i}`,
      name: 'Read',
      input: { file_path: f },
    }));
    fake.server.enqueue(toolUseReply(calls), textReply('done'));
    // The first call is the slowest, so completion order differs from call order.
    const delays: Record<string, number> = { a: 150, b: 60, c: 100 };
    const tools = fakeTools({
      Read: async (input) => {
        await sleep(delays[String(input['file_path'])] ?? 0);
        return { content: `read ${String(input['file_path'])}`, isError: false };
      },
    });
    const { events } = await drive({ spec: specFor(), client: client(), tools });
    const latestStart = Math.max(...tools.log.map((l) => l.start));
    const earliestEnd = Math.min(...tools.log.map((l) => l.end));
    expect(latestStart).toBeLessThan(earliestEnd); // all three were running at once
    expect(ofType(events, 'tool-result').map((e) => e.toolUseId)).toEqual([
      'toolu_p1',
      'toolu_p2',
      'toolu_p0',
    ]);
    const sent = toolResults(fake.server.requests[1]!.body);
    expect(sent.map((b) => [b.tool_use_id, b.content])).toEqual([
      ['toolu_p0', 'read a'],
      ['toolu_p1', 'read b'],
      ['toolu_p2', 'read c'],
    ]);
  });

  it('runs other tools one at a time, in order, between parallel batches', async () => {
    fake.server.enqueue(
      toolUseReply([
        { id: 't0', name: 'Write', input: { n: 0 } },
        { id: 't1', name: 'Bash', input: { n: 1 } },
        { id: 't2', name: 'Read', input: { n: 2 } },
        { id: 't3', name: 'Read', input: { n: 3 } },
        { id: 't4', name: 'Write', input: { n: 4 } },
      ]),
      textReply('done'),
    );
    const slow = async () => {
      await sleep(40);
      return { content: 'ok', isError: false };
    };
    const tools = fakeTools({ Write: slow, Bash: slow, Read: slow });
    await drive({ spec: specFor(), client: client(), tools });
    const byN = [...tools.log].sort(
      (a, b) => Number((a.input as { n: number }).n) - Number((b.input as { n: number }).n),
    );
    expect(byN.map((l) => l.name)).toEqual(['Write', 'Bash', 'Read', 'Read', 'Write']);
    const [w0, b1, r2, r3, w4] = byN as [
      (typeof byN)[0],
      (typeof byN)[0],
      (typeof byN)[0],
      (typeof byN)[0],
      (typeof byN)[0],
    ];
    expect(b1.start).toBeGreaterThanOrEqual(w0.end);
    expect(r2.start).toBeGreaterThanOrEqual(b1.end);
    expect(Math.max(r2.start, r3.start)).toBeLessThan(Math.min(r2.end, r3.end)); // the two Reads overlap
    expect(w4.start).toBeGreaterThanOrEqual(Math.max(r2.end, r3.end));
    expect(toolResults(fake.server.requests[1]!.body).map((b) => b.tool_use_id)).toEqual([
      't0',
      't1',
      't2',
      't3',
      't4',
    ]);
  });

  it('stops at max_turns with the last text and answers the unrun calls', async () => {
    let n = 0;
    fake.server.setResponder(() =>
      toolUseReply([{ id: `toolu_m${n}`, name: 'Read', input: { file_path: 'x' } }], { text: `step ${++n}` }),
    );
    const tools = readTool();
    const { events, result } = await drive({ spec: specFor({ maxTurns: 2 }), client: client(), tools });
    expect(result).toMatchObject({
      status: 'max_turns',
      result: 'step 2',
      turns: 2,
      toolCalls: 1,
      error: { code: 'max_turns' },
    });
    expect(fake.server.requests).toHaveLength(2);
    expect(tools.log).toHaveLength(1);
    const last = ofType(events, 'message-append').at(-1)?.message;
    expect(last?.role).toBe('user');
    expect(last?.content).toEqual([
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_m1', is_error: true }),
    ]);
  });

  it('continues after max_tokens and joins the text', async () => {
    fake.server.enqueue(textReply('The answer is', { stopReason: 'max_tokens' }), textReply(' forty-two.'));
    const { result } = await drive({ spec: specFor(), client: client() });
    expect(result).toMatchObject({ status: 'completed', result: 'The answer is forty-two.', turns: 2 });
    const second = fake.server.requests[1]!.body;
    expect(second.messages.at(-2)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'The answer is' }],
    });
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: CONTINUE_MESSAGE });
  });

  it('answers a tool call cut off at max_tokens with an error instead of running it', async () => {
    // A string input stands for JSON that is not a complete object, as a cut-off reply leaves it.
    fake.server.enqueue(
      messageReply([{ type: 'tool_use', id: 'toolu_cut', name: 'Read', input: '{"file_path": "src/' }], {
        stopReason: 'max_tokens',
      }),
      textReply('Sorry, done.'),
    );
    const tools = readTool();
    const { result } = await drive({ spec: specFor(), client: client(), tools });
    expect(result.status).toBe('completed');
    expect(tools.log).toHaveLength(0);
    const last = fake.server.requests[1]!.body.messages.at(-1)!;
    const blocks = last.content as RequestBlock[];
    expect(blocks[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_cut', is_error: true });
    expect(String(blocks[0]?.content)).toContain('invalid_input');
    expect(blocks[1]).toEqual({ type: 'text', text: CONTINUE_MESSAGE });
  });

  it('resends after pause_turn without adding a user message', async () => {
    fake.server.enqueue(textReply('Still working', { stopReason: 'pause_turn' }), textReply(', finished.'));
    const { result } = await drive({ spec: specFor(), client: client() });
    expect(result).toMatchObject({ status: 'completed', result: 'Still working, finished.', turns: 2 });
    const second = fake.server.requests[1]!.body.messages;
    expect(second).toHaveLength(2);
    expect(second[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Still working' }] });
  });

  it('sends tool failures to the model as is_error results', async () => {
    fake.server.enqueue(
      toolUseReply([
        { id: 'e1', name: 'Read', input: { file_path: 'missing' } },
        { id: 'e2', name: 'Grep', input: { pattern: '(' } },
        { id: 'e3', name: 'Bash', input: { command: 'rm -rf /' } },
      ]),
      textReply('I see the errors.'),
    );
    const tools = fakeTools({
      Read: () => ({ content: 'not_found: missing does not exist', isError: true }),
      Grep: () => {
        throw new Error('regex exploded');
      },
    });
    const { events, result } = await drive({ spec: specFor(), client: client(), tools });
    expect(result.status).toBe('completed');
    expect(tools.log.map((l) => l.name).sort()).toEqual(['Grep', 'Read']); // Bash was never offered, never run
    const sent = toolResults(fake.server.requests[1]!.body);
    expect(sent).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'e1',
        content: 'not_found: missing does not exist',
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: 'e2',
        content: 'internal: Grep failed: regex exploded',
        is_error: true,
      },
      expect.objectContaining({ tool_use_id: 'e3', is_error: true }),
    ]);
    expect(String(sent[2]?.content)).toMatch(/^not_granted: no tool named "Bash"/);
    expect(ofType(events, 'tool-result').every((e) => e.isError)).toBe(true);
  });

  it('takes one grace turn without tool use, then completes', async () => {
    fake.server.enqueue(
      toolUseReply([{ id: 'g1', name: 'Read', input: { file_path: 'a' } }]),
      textReply('Final report.'),
    );
    let graceAsked = false;
    const tools = fakeTools({
      Read: () => {
        graceAsked = true; // the host's deadline arrives while the tool runs
        return { content: 'a', isError: false };
      },
    });
    const { result } = await drive({
      spec: specFor(),
      client: client(),
      tools,
      grace: {
        requested: () => graceAsked,
        message: () => 'Time is almost up: write your final report now.',
      },
    });
    expect(result).toMatchObject({ status: 'completed', result: 'Final report.', turns: 2 });
    const grace = fake.server.requests[1]!.body;
    // Tool blocks are in the history, so the definitions stay and tool_choice forbids using them.
    expect(grace.tool_choice).toEqual({ type: 'none' });
    expect(grace.messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'g1', content: 'a' },
      { type: 'text', text: 'Time is almost up: write your final report now.' },
    ]);
    expect(fake.server.requests[0]!.body.tool_choice).toBeUndefined();
  });

  it('sends no tools at all in a grace turn when the history has no tool blocks', async () => {
    fake.server.enqueue(textReply('Report.'));
    const { result } = await drive({
      spec: specFor(),
      client: client(),
      tools: readTool(),
      grace: { requested: () => true, message: () => '' },
    });
    expect(result).toMatchObject({ status: 'completed', result: 'Report.', turns: 1 });
    const body = fake.server.requests[0]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.messages.map((m) => m.content)).toEqual(['Do the thing.', DEFAULT_GRACE_MESSAGE]);
  });

  it('emits message-append events that rebuild the conversation for a resume', async () => {
    fake.server.enqueue(
      toolUseReply([{ id: 'r1', name: 'Read', input: { file_path: 'a' } }], { text: 'Let me look.' }),
      textReply('First answer.'),
    );
    const first = await drive({ spec: specFor(), client: client(), tools: readTool() });
    const rebuilt = ofType(first.events, 'message-append').map((e) => e.message);
    expect(rebuilt.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(fake.server.requests[1]!.body.messages).toEqual(rebuilt.slice(0, 3));

    fake.server.enqueue(textReply('Second answer.'));
    const resumed = await drive({
      spec: specFor({ history: rebuilt, prompt: 'And now?' }),
      client: client(),
      tools: readTool(),
    });
    expect(resumed.result.result).toBe('Second answer.');
    expect(fake.server.requests[2]!.body.messages).toEqual([
      ...rebuilt,
      { role: 'user', content: 'And now?' },
    ]);
    expect(ofType(resumed.events, 'message-append').map((e) => e.message)).toEqual([
      { role: 'user', content: 'And now?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Second answer.' }] },
    ]);
  });

  it('reports cumulative usage after every turn', async () => {
    fake.server.enqueue(
      toolUseReply([{ id: 'u1', name: 'Read', input: { file_path: 'a' } }], {
        usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 7 },
      }),
      textReply('done', { usage: { input_tokens: 150, output_tokens: 5 } }),
    );
    const { events, result } = await drive({ spec: specFor(), client: client(), tools: readTool() });
    expect(
      ofType(events, 'usage').map((e) => [
        e.usage.input_tokens,
        e.usage.output_tokens,
        e.usage.cache_read_input_tokens,
      ]),
    ).toEqual([
      [100, 20, 7],
      [250, 25, 7],
    ]);
    expect(result.usage.input_tokens).toBe(250);
  });
});
