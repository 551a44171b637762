// Drives the fake Anthropic server with the real @anthropic-ai/sdk client: streaming and JSON
// replies, tool use, retries on 429/529, mid-stream errors, dropped/stalled connections, auth, concurrency.

import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';

import {
  dropConnection,
  errorReply,
  midStreamError,
  overlaps,
  stallAfterHeaders,
  startFakeAnthropic,
  systemText,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
  type FakeAnthropicOptions,
} from './fake-anthropic.js';

const MODEL = 'claude-haiku-4-5';
const servers: FakeAnthropic[] = [];

async function start(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const server = await startFakeAnthropic(options);
  servers.push(server);
  return server;
}

/** A real SDK client. This SDK sends `apiKey` as `Authorization: Bearer`; 'x-api-key' swaps in that header instead. */
function client(
  server: FakeAnthropic,
  maxRetries = 0,
  style: 'bearer' | 'x-api-key' = 'bearer',
  key = 'sk-test',
) {
  const defaultHeaders = style === 'x-api-key' ? { 'X-Api-Key': key, Authorization: null } : {};
  return new Anthropic({ apiKey: key, baseURL: server.url, maxRetries, defaultHeaders });
}

const ask = (text: string, system?: string) => ({
  model: MODEL,
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: text }],
  ...(system === undefined ? {} : { system }),
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('fake Anthropic server with the real SDK', () => {
  it('streams a text reply in the real event order', async () => {
    const server = await start();
    server.enqueue(
      textReply('Hello there, general Kenobi!', { usage: { input_tokens: 12, output_tokens: 7 } }),
    );
    const sdk = client(server);

    const stream = sdk.messages.stream(ask('hi', 'You are a test agent.'));
    const seen: string[] = [];
    stream.on('streamEvent', (event) => seen.push(event.type));
    const message = await stream.finalMessage();

    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe(MODEL);
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there, general Kenobi!' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.stop_sequence).toBeNull();
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 0 });

    // The raw wire, ping included.
    server.enqueue(textReply('Hello there, general Kenobi!'));
    const response = await sdk.messages.create({ ...ask('hi'), stream: true }).asResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const raw = await response.text();
    const names = [...raw.matchAll(/^event: (\w+)\ndata: \{.*\}\n\n/gm)].map((m) => m[1]);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(seen).toEqual(names.filter((n) => n !== 'ping'));

    const [first] = server.requests;
    expect(first?.stream).toBe(true);
    expect(systemText(first!.body)).toBe('You are a test agent.');
    expect(first?.sampling).toEqual({ temperature: false, top_p: false, top_k: false });
    expect(first?.auth).toEqual({ via: 'bearer', key: 'sk-test' });
    expect(first?.headers['anthropic-version']).toBeTruthy();
    expect(first?.outcome).toBe('completed');
  });

  it('streams a tool_use reply that the SDK parses, and serves the same as JSON', async () => {
    const server = await start();
    const call = { name: 'read_file', input: { path: 'src/a.ts', lines: [1, 20] }, id: 'toolu_01abc' };
    server.enqueue(toolUseReply([call], { text: 'Let me look.' }), toolUseReply([call]));
    const sdk = client(server);

    const message = await sdk.messages.stream(ask('read it')).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toEqual({ type: 'text', text: 'Let me look.' });
    expect(message.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_01abc',
      name: 'read_file',
      input: call.input,
    });

    const json = await sdk.messages.create(ask('read it'));
    expect(json.content).toEqual([
      { type: 'tool_use', id: 'toolu_01abc', name: 'read_file', input: call.input },
    ]);
    expect(json.stop_reason).toBe('tool_use');
    expect(server.requests[1]?.stream).toBe(false);
  });

  it('lets a responder branch on the tool_result turn', async () => {
    const server = await start({
      responder: (req) =>
        toolResults(req.body).length > 0 ? textReply('done') : toolUseReply([{ name: 'ls', input: {} }]),
    });
    const sdk = client(server);
    const first = await sdk.messages.create(ask('go'));
    const use = first.content.find((b) => b.type === 'tool_use');
    const second = await sdk.messages.create({
      ...ask('go'),
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id ?? '', content: 'a b' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('retries a 429 with retry-after, then succeeds', async () => {
    const server = await start();
    server.enqueue(errorReply(429, { retryAfter: 0.05 }), textReply('after retry'));
    const message = await client(server, 2).messages.stream(ask('hi')).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'after retry' }]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
    expect(server.requests[0]?.step).toMatchObject({
      kind: 'error',
      status: 429,
      errorType: 'rate_limit_error',
    });
  });

  it('gives up on repeated 529 after maxRetries', async () => {
    const server = await start({ responder: () => errorReply(529, { retryAfter: 0.01 }) });
    const error: unknown = await client(server, 1)
      .messages.create(ask('hi'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(server.requests).toHaveLength(2);
  });

  it('rejects the stream on a mid-stream error event', async () => {
    const server = await start();
    server.enqueue(midStreamError('Partial answer, then ', 'overloaded_error'));
    const stream = client(server, 2).messages.stream(ask('hi'));
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    await expect(stream.finalMessage()).rejects.toThrow(/Overloaded/);
    expect(texts.join('')).toBe('Partial answer, then ');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects when the connection drops mid-stream or before headers', async () => {
    const server = await start();
    server.enqueue(dropConnection(3), dropConnection());
    await expect(client(server).messages.stream(ask('hi')).finalMessage()).rejects.toThrow();
    await expect(client(server).messages.create(ask('hi'))).rejects.toBeInstanceOf(
      Anthropic.APIConnectionError,
    );
    await server.idle();
    expect(server.requests.map((r) => r.outcome)).toEqual(['dropped', 'dropped']);
  });

  it('stalls after headers until the client aborts', async () => {
    const server = await start();
    server.enqueue(stallAfterHeaders());
    const controller = new AbortController();
    const t0 = performance.now();
    setTimeout(() => controller.abort(), 200);
    const stream = client(server).messages.stream(ask('hi'), { signal: controller.signal });
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(performance.now() - t0).toBeLessThan(1000);
    await server.idle();
    expect(server.requests[0]?.outcome).toBe('client_aborted');
  });

  it('clears timers when a client aborts during latency, and close() never hangs', async () => {
    const server = await start({ latencyMs: 5_000 });
    const controller = new AbortController();
    const aborted = client(server).messages.create(ask('slow'), { signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    await server.idle(1_000);
    expect(server.requests[0]?.outcome).toBe('client_aborted');

    server.enqueue(stallAfterHeaders(undefined, { latencyMs: 0 }), textReply('never sent'));
    const stream = client(server).messages.stream(ask('a'));
    // The stream also reports its failure as an event; without a listener that is an unhandled rejection.
    stream.on('error', () => undefined);
    const stalled = stream.finalMessage();
    const waiting = client(server).messages.create(ask('b'));
    // Handlers go on before the close, so neither rejection is ever unhandled.
    const stalledFails = expect(stalled).rejects.toThrow();
    const waitingFails = expect(waiting).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
    await server.waitForRequests(3);
    const t0 = performance.now();
    await server.close();
    expect(performance.now() - t0).toBeLessThan(500);
    await stalledFails;
    await waitingFails;
    expect(server.inFlight).toBe(0);
  });

  it('accepts x-api-key and Bearer auth, and rejects a wrong key', async () => {
    const server = await start({ requireKey: 'sk-right' });
    await client(server, 0, 'x-api-key', 'sk-right').messages.create(ask('a'));
    await client(server, 0, 'bearer', 'sk-right').messages.create(ask('b'));
    const token = new Anthropic({ authToken: 'sk-right', baseURL: server.url, maxRetries: 0 });
    await token.messages.create(ask('c'));
    await expect(client(server, 0, 'x-api-key', 'sk-wrong').messages.create(ask('d'))).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    await expect(client(server, 0, 'bearer', 'sk-wrong').messages.create(ask('e'))).rejects.toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
    expect(server.requests.map((r) => r.auth.via)).toEqual([
      'x-api-key',
      'bearer',
      'bearer',
      'x-api-key',
      'bearer',
    ]);
    expect(server.requests.map((r) => r.step?.kind)).toEqual([
      'message',
      'message',
      'message',
      'error',
      'error',
    ]);
  });

  it('validates required fields with the real error body', async () => {
    const server = await start();
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }], temperature: 0.2 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    expect(server.requests[0]?.sampling.temperature).toBe(true);
  });

  it('serves 8 concurrent requests in parallel under 300 ms latency', async () => {
    const server = await start({ latencyMs: 300 });
    const sdk = client(server);
    const t0 = performance.now();
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => sdk.messages.create(ask(`n${i}`))));
    expect(replies.every((m) => m.content[0]?.type === 'text')).toBe(true);
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(overlaps(server.requests)).toBe(8);
    expect(server.overlaps()).toBe(8);
    expect(server.maxConcurrent()).toBe(8);
  });
});
