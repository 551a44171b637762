// The anthropic client on its own, with the real SDK against the fake server: normalized events,
// credentials, connection failures, the idle watchdog and recording.
import { describe, expect, it } from 'vitest';
import {
  dropConnection,
  errorReply,
  messageReply,
  stallAfterHeaders,
  startFakeAnthropic,
  textReply,
} from '../../support/fake-anthropic.js';
import { isCadreError } from '../../../src/shared/errors.js';
import type { ModelConfig } from '../../../src/shared/run-spec.js';
import type { CassetteExchange } from '../../../src/worker/models/cassette.js';
import { type ModelRequest, type ModelStreamEvent } from '../../../src/worker/models/model-client.js';
import { def, fakeModelConfig, useFakeServer, hostedModelClient } from './loop-support.js';

const fake = useFakeServer();

const request: ModelRequest = {
  model: 'claude-test-1',
  system: 'sys',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [def('Read')],
  maxTokens: 256,
};

async function collect(
  config: ModelConfig,
  signal = new AbortController().signal,
): Promise<{ events: ModelStreamEvent[]; error?: unknown }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const e of hostedModelClient(config).stream(request, signal)) events.push(e);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe('anthropic model client', () => {
  it('normalizes the stream: text deltas, complete tool calls, cumulative usage, message-end', async () => {
    fake.server.enqueue(
      messageReply(
        [
          { type: 'text', text: 'Let me read it.' },
          { type: 'tool_use', id: 'toolu_x', name: 'Read', input: { file_path: 'src/index.ts', limit: 20 } },
        ],
        { usage: { input_tokens: 40, output_tokens: 12, cache_creation_input_tokens: 3 }, chunks: 4 },
      ),
    );
    const { events, error } = await collect(fakeModelConfig(fake.server.url));
    expect(error).toBeUndefined();
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('usage');
    expect(types.at(-1)).toBe('message-end');
    expect(
      events
        .filter((e) => e.type === 'text-delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Let me read it.');
    const toolUses = events.filter((e) => e.type === 'tool-use');
    expect(toolUses).toEqual([
      { type: 'tool-use', id: 'toolu_x', name: 'Read', input: { file_path: 'src/index.ts', limit: 20 } },
    ]);
    const usages = events
      .filter((e) => e.type === 'usage')
      .map((e) => (e as { usage: { output_tokens: number } }).usage.output_tokens);
    expect(usages).toEqual([1, 12]); // message_start, then the final message_delta
    expect(events.at(-1)).toEqual({
      type: 'message-end',
      stopReason: 'tool_use',
      content: [
        { type: 'text', text: 'Let me read it.' },
        { type: 'tool_use', id: 'toolu_x', name: 'Read', input: { file_path: 'src/index.ts', limit: 20 } },
      ],
    });
    expect(fake.server.requests[0]?.body).toMatchObject({
      model: 'claude-test-1',
      max_tokens: 256,
      system: 'sys',
      stream: true,
    });
    expect(fake.server.requests[0]?.sampling).toEqual({ temperature: false, top_p: false, top_k: false });
  });

  it('sends an auth token as a bearer token', async () => {
    const { apiKey: _apiKey, ...noKey } = fakeModelConfig(fake.server.url);
    await collect({ ...noKey, authToken: 'tok-123' });
    expect(fake.server.requests[0]?.auth).toEqual({ via: 'bearer', key: 'tok-123' });
  });

  it('talks to a keyless compatible server without credentials', async () => {
    const { apiKey: _apiKey, ...noKey } = fakeModelConfig(fake.server.url);
    const { error } = await collect(noKey);
    expect(error).toBeUndefined();
    expect(fake.server.requests[0]?.auth).toEqual({ via: 'none', key: null });
  });

  it('reports an authentication failure with the API message, without retrying', async () => {
    const guarded = await startFakeAnthropic({ requireKey: 'right-key' });
    try {
      const { error } = await collect(fakeModelConfig(guarded.url, { apiKey: 'wrong-key' }));
      expect(isCadreError(error) && error.code).toBe('model_error');
      expect((error as Error).message).toBe('401 authentication_error: invalid x-api-key');
      expect(guarded.requests).toHaveLength(1);
    } finally {
      await guarded.close();
    }
  });

  it('retries a dropped connection, then names the server it cannot reach', async () => {
    fake.server.setResponder(() => dropConnection());
    const { error } = await collect(fakeModelConfig(fake.server.url, { maxRetries: 1 }));
    expect(fake.server.requests).toHaveLength(2);
    expect(isCadreError(error) && error.code).toBe('model_error');
    expect((error as Error).message).toContain(`cannot reach the model API at ${fake.server.url}`);
  });

  it('fails a stream cut off mid-message', async () => {
    fake.server.enqueue(dropConnection(4, { text: 'a reply that never finishes' }));
    const { events, error } = await collect(fakeModelConfig(fake.server.url));
    expect(isCadreError(error) && error.code).toBe('model_error');
    expect((error as Error).message).toBe(`the model stream from ${fake.server.url} broke off: terminated`);
    expect(events.some((e) => e.type === 'message-end')).toBe(false);
    expect(fake.server.requests).toHaveLength(1);
  });

  it('keeps a slow but live stream going: every byte resets the idle watchdog', async () => {
    // Gaps of a quarter of the idle limit: the stream's own event loop (the fake server's too) can
    // stall for most of the limit on a loaded machine without a gap reaching it (was 60 of 250 ms).
    fake.server.enqueue(textReply('one two three four five six', { chunks: 6, eventDelayMs: 250 }));
    const started = Date.now();
    const { events, error } = await collect(fakeModelConfig(fake.server.url, { streamIdleTimeoutMs: 1000 }));
    expect(error).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThan(1000); // longer than the idle timeout overall
    expect(events.at(-1)?.type).toBe('message-end');
  });

  it('times out a stream that stalls after message_start', async () => {
    fake.server.enqueue(stallAfterHeaders());
    const { events, error } = await collect(fakeModelConfig(fake.server.url, { streamIdleTimeoutMs: 150 }));
    expect(events.map((e) => e.type)).toEqual(['usage']); // message_start arrived, then nothing
    expect(isCadreError(error) && error.code).toBe('timeout');
    expect((error as { details?: unknown }).details).toEqual({ reason: 'idle_timeout' });
    expect((error as Error).message).toBe('the model stream sent nothing for 150 ms (idle timeout)');
  });

  it('times out a server that never sends its headers', async () => {
    fake.server.enqueue(textReply('late', { latencyMs: 3_000 }));
    const { error } = await collect(
      fakeModelConfig(fake.server.url, { streamIdleTimeoutMs: 150, maxRetries: 0 }),
    );
    expect(isCadreError(error) && error.code).toBe('timeout');
    expect((error as Error).message).toContain('sent no response headers');
  });

  it('throws cancelled when the signal fires', async () => {
    fake.server.enqueue(stallAfterHeaders());
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const { error } = await collect(
      fakeModelConfig(fake.server.url, { streamIdleTimeoutMs: 5_000 }),
      abort.signal,
    );
    expect(isCadreError(error) && error.code).toBe('cancelled');
  });

  it('reports every exchange, failed ones included, when recording', async () => {
    fake.server.enqueue(textReply('recorded reply'), errorReply(400, { message: 'messages: bad' }));
    const exchanges: CassetteExchange[] = [];
    const client = hostedModelClient(fakeModelConfig(fake.server.url, { record: true }), {
      onExchange: (e) => exchanges.push(e),
    });
    for await (const _ of client.stream(request, new AbortController().signal)) void _;
    await expect(async () => {
      for await (const _ of client.stream(request, new AbortController().signal)) void _;
    }).rejects.toThrow('400 invalid_request_error: messages: bad');
    expect(exchanges).toHaveLength(2);
    expect(exchanges[0]?.request).toEqual({
      model: 'claude-test-1',
      system: 'sys',
      messages: request.messages,
      tools: ['Read'],
      maxTokens: 256,
    });
    expect(exchanges[0]?.events.at(-1)).toMatchObject({
      type: 'message-end',
      content: [{ type: 'text', text: 'recorded reply' }],
    });
    expect(exchanges[1]?.error).toMatchObject({
      code: 'model_error',
      message: '400 invalid_request_error: messages: bad',
    });
  });
});
