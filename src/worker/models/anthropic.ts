// The anthropic model client: the official SDK, streaming, with the SDK's own retries, an idle
// watchdog on the body (the SDK's timeout stops at the headers), and normalized events out.
// It builds the SDK's core client with the Messages resource alone: the full client constructs
// every API resource (beta, files, organization, ...) and its code is two thirds of the SDK, which
// every worker thread would load and compile for one endpoint.
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages, type MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { CadreError } from '../../shared/errors.js';
import { DEFAULT_MODEL_BASE_URL } from '../../shared/model-wire.js';
import type { ModelConfig, ReplyCaps } from '../../shared/run-spec.js';
import { toModelError } from './anthropic-errors.js';
import { MessageAccumulator, type RawStreamEvent } from './message-accumulator.js';
import type { HostFetch, HostFetchInit } from './host-fetch.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './model-client.js';

/**
 * A client without a key or token (a local compatible server): it must not fall back to the SDK's
 * default credential chain, which reads profile files the worker may not open.
 */
class KeylessAnthropic extends BaseAnthropic {
  protected override _shouldResolveDefaultCredentials(): boolean {
    return false;
  }
}

/** Resets on every byte of a response body; fires `onIdle` after `ms` of silence once armed. */
class IdleWatchdog {
  private timer: NodeJS.Timeout | undefined;
  fired = false;
  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}
  arm(): void {
    this.touch();
  }
  touch(): void {
    if (this.fired) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.onIdle();
    }, this.ms);
  }
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

// A thread runs one agent at a time, so the stream watchdogs and the transport of the current run
// live here and the SDK client is kept for the next run with the same settings: a new client per
// run costs start-up time and leaves memory behind in long batches.
const watchdogs = new Set<IdleWatchdog>();
let cachedClient: { key: string; client: BaseAnthropic; messages: Messages } | undefined;
let transport: HostFetch | undefined;

// Every chunk of every body counts as activity, pings included (the SDK drops pings before we see events).
const touchWatchdogs = () => {
  for (const w of watchdogs) w.touch();
};

// The SDK's fetch: the current run's transport, reporting body bytes to the watchdogs.
const sdkFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  if (transport === undefined) return Promise.reject(new TypeError('no model transport for this run'));
  return transport(input, { ...(init as HostFetchInit), onBytes: touchWatchdogs });
};

function sdkClient(config: ModelConfig): { client: BaseAnthropic; messages: Messages } {
  const key = JSON.stringify([
    config.apiKey,
    config.authToken,
    config.baseURL,
    config.maxRetries,
    config.streamIdleTimeoutMs,
  ]);
  if (cachedClient?.key === key) return cachedClient;
  const keyless = config.apiKey === undefined && config.authToken === undefined;
  const options = {
    ...(config.apiKey !== undefined ? { apiKey: config.apiKey, authToken: null } : {}),
    ...(config.apiKey === undefined && config.authToken !== undefined
      ? { authToken: config.authToken, apiKey: null }
      : {}),
    ...(keyless
      ? { apiKey: null, authToken: null, defaultHeaders: { authorization: null, 'x-api-key': null } }
      : {}),
    // Always explicit: without it the SDK would read the thread's environment.
    baseURL: config.baseURL ?? DEFAULT_MODEL_BASE_URL,
    maxRetries: config.maxRetries,
    // The SDK's timeout covers the wait for the headers; after them the idle watchdog takes over.
    timeout: config.streamIdleTimeoutMs,
    fetch: sdkFetch,
    logLevel: 'off' as const,
    openTelemetry: false as const,
  };
  const client = keyless ? new KeylessAnthropic(options) : new BaseAnthropic(options);
  cachedClient = { key, client, messages: new Messages(client) };
  return cachedClient;
}

/**
 * Builds the anthropic client of a run. Credentials and base URL come only from `config`; every
 * request goes through `fetch`, the run's transport (the host's model channel). With `caps`, a
 * reply that streams more text or tool input than they allow ends with `too_large`.
 */
export function createAnthropicClient(config: ModelConfig, fetch: HostFetch, caps?: ReplyCaps): ModelClient {
  transport = fetch;
  const { client, messages } = sdkClient(config);
  const baseURL = client.baseURL;

  return {
    kind: 'anthropic',
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      const watchdog = new IdleWatchdog(config.streamIdleTimeoutMs, () => controller.abort());
      const ctx = () => ({
        baseURL,
        idleTimeoutMs: config.streamIdleTimeoutMs,
        idle: watchdog.fired,
        cancelled: signal.aborted,
      });
      let finished = false;
      try {
        if (signal.aborted) throw new CadreError('cancelled', 'the model call was cancelled');
        const acc = new MessageAccumulator(caps);
        let stream: AsyncIterable<unknown>;
        try {
          stream = await messages.create(toParams(request), { signal: controller.signal });
        } catch (error) {
          throw toModelError(error, ctx());
        }
        watchdogs.add(watchdog);
        watchdog.arm();
        try {
          for await (const raw of stream) {
            if (typeof raw !== 'object' || raw === null || typeof (raw as RawStreamEvent).type !== 'string')
              continue;
            yield* acc.push(raw as RawStreamEvent);
          }
        } catch (error) {
          throw toModelError(error, ctx());
        }
        // The SDK ends the iteration quietly when its request is aborted: find out why.
        if (watchdog.fired || signal.aborted) throw toModelError(new Error('aborted'), ctx());
        if (!acc.stopped) {
          throw new CadreError(
            'model_error',
            `the model stream from ${baseURL} ended before message_stop (connection closed)`,
            {
              reason: 'model_error',
            },
          );
        }
        yield* acc.finish();
        finished = true;
      } finally {
        watchdog.stop();
        watchdogs.delete(watchdog);
        signal.removeEventListener('abort', onAbort);
        // A consumer that stops early must not leave the HTTP request running.
        if (!finished) controller.abort();
      }
    },
  };
}

/** The request body. Sampling parameters (temperature, top_p, top_k) are never sent. */
function toParams(request: ModelRequest): MessageCreateParamsStreaming {
  const params: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages: request.messages as MessageCreateParamsStreaming['messages'],
    stream: true,
  };
  if (request.system !== '') params.system = request.system;
  if (request.tools.length > 0) {
    params.tools = request.tools as NonNullable<MessageCreateParamsStreaming['tools']>;
    if (request.toolChoice === 'none') params.tool_choice = { type: 'none' };
  }
  return params;
}
