// The agent loop's failure paths with the real Anthropic SDK against the fake Messages API:
// refusals, retried and exhausted API errors, a mid-stream error, a stalled stream, an oversized
// conversation and cancellation. Every one ends in a result, never a throw.
import { describe, expect, it } from 'vitest';
import {
  errorReply,
  midStreamError,
  stallAfterHeaders,
  textReply,
  toolUseReply,
} from '../support/fake-anthropic.js';
import type { ModelConfig } from '../../src/shared/run-spec.js';
import {
  drive,
  fakeModelConfig,
  fakeTools,
  makeSpec,
  ofType,
  useFakeServer,
  hostedModelClient,
} from './models/loop-support.js';

const fake = useFakeServer();

const client = (over: Partial<ModelConfig> = {}) => hostedModelClient(fakeModelConfig(fake.server.url, over));
const specFor = (over: Parameters<typeof makeSpec>[0] = {}) =>
  makeSpec({ model: fakeModelConfig(fake.server.url), ...over });

describe('runAgentLoop failures', () => {
  it('fails with model_refusal on a refusal', async () => {
    fake.server.enqueue(textReply('I will not help with that.', { stopReason: 'refusal' }));
    const { result } = await drive({ spec: specFor(), client: client() });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'model_refusal', details: { reason: 'refusal' } });
    expect(result.error?.message).toContain('I will not help with that.');
  });

  it('retries a 429 (the SDK honours retry-after) and then succeeds', async () => {
    fake.server.enqueue(errorReply(429, { retryAfter: 0.01 }), textReply('after the retry'));
    const { result } = await drive({ spec: specFor(), client: client() });
    expect(result).toMatchObject({ status: 'completed', result: 'after the retry' });
    expect(fake.server.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });

  it('fails with the API error once 529s outlast the retries', async () => {
    fake.server.setResponder(() => errorReply(529, { retryAfter: 0.01 }));
    const { result } = await drive({ spec: specFor(), client: client({ maxRetries: 2 }) });
    expect(fake.server.requests).toHaveLength(3); // 1 + 2 retries
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'model_error',
      details: { status: 529, type: 'overloaded_error' },
    });
    expect(result.error?.message).toBe('529 overloaded_error: Overloaded');
  });

  it('fails on an error event mid-stream and keeps the partial text', async () => {
    fake.server.enqueue(midStreamError('Half of a rep'));
    const { events, result } = await drive({ spec: specFor(), client: client() });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('model_error');
    expect(result.error?.message).toContain('overloaded_error: Overloaded');
    expect(result.result).toBe('Half of a rep');
    expect(
      ofType(events, 'text-delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('Half of a rep');
    expect(fake.server.requests).toHaveLength(1); // a stream already under way is not retried
  });

  it('ends a stalled stream with an idle timeout', async () => {
    fake.server.enqueue(stallAfterHeaders());
    const started = Date.now();
    const { result } = await drive({ spec: specFor(), client: client({ streamIdleTimeoutMs: 200 }) });
    const elapsed = Date.now() - started;
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'timeout', details: { reason: 'idle_timeout' } });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2_000);
    await fake.server.idle(2_000); // the request was aborted, not left hanging
  });

  it('fails with too_large when the conversation outgrows its cap', async () => {
    fake.server.enqueue(toolUseReply([{ id: 'big', name: 'Read', input: { file_path: 'a' } }]));
    const tools = fakeTools({ Read: () => ({ content: 'x'.repeat(5_000), isError: false }) });
    const spec = specFor({ caps: { ...makeSpec().caps, maxConversationChars: 2_000 } });
    const { result } = await drive({ spec, client: client(), tools });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('too_large');
    expect(fake.server.requests).toHaveLength(1);
  });

  it('stops promptly when cancelled mid-stream', async () => {
    fake.server.enqueue(stallAfterHeaders());
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const started = Date.now();
    const { result } = await drive({
      spec: specFor(),
      client: client({ streamIdleTimeoutMs: 10_000 }),
      signal: abort.signal,
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('cancelled');
  });
});
