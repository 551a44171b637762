// The ModelClient interface the agent loop talks to, and the factory that picks an implementation
// (anthropic, offline, replay) from a run's ModelConfig.
import type { ModelConfig, ReplyCaps } from '../../shared/run-spec.js';
import type { ConversationMessage } from '../../shared/events.js';
import type { CassetteExchange } from './cassette.js';
import type { ModelStreamEvent } from './stream-event.js';
import { CadreError } from '../../shared/errors.js';
import { createAnthropicClient } from './anthropic.js';
import type { HostFetch } from './host-fetch.js';
import { createOfflineClient } from './offline.js';
import { createReplayClient } from './replay.js';
import { withRecorder } from './recorder.js';

export type { ModelStreamEvent, ModelStreamEventOf, AssistantBlock } from './stream-event.js';

/** A tool as the Messages API takes it. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** One model call: everything the model sees this turn. */
export interface ModelRequest {
  model: string;
  system: string;
  /** The conversation in the Messages API shape. */
  messages: ConversationMessage[];
  tools: ToolDefinition[];
  maxTokens: number;
  /**
   * `none`: the model may not call a tool this turn. The tools stay defined because the Messages
   * API rejects a conversation holding tool_use/tool_result blocks when no tools are defined.
   */
  toolChoice?: 'auto' | 'none';
}

/** A model behind a uniform, normalized stream. One stream at a time per client. */
export interface ModelClient {
  /** Which implementation this is, for labels and logs. */
  readonly kind: ModelConfig['provider'];
  /**
   * Streams one reply. Ends with exactly one `message-end`, or throws a CadreError:
   * `model_error` (API or connection), `timeout` (stream idle, details.reason `idle_timeout`),
   * `cancelled` (the signal fired).
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent>;
}

/** What a client needs from its run, and hooks it reports to. */
export interface ModelClientOptions {
  /** The run's transport to the model API (the host's model channel); required by `anthropic`. */
  fetch?: HostFetch;
  /** With `config.record`: called after every exchange (also failed ones) so the host can write a cassette. */
  onExchange?: (exchange: CassetteExchange) => void;
  /** The run's caps on one reply, enforced as the stream arrives. */
  caps?: ReplyCaps;
}

/** Builds the client a ModelConfig names (wrapped in a recorder when `config.record` is set). */
export function createModelClient(config: ModelConfig, options: ModelClientOptions = {}): ModelClient {
  const client = pick(config, options);
  return config.record === true && options.onExchange !== undefined
    ? withRecorder(client, options.onExchange)
    : client;
}

function pick(config: ModelConfig, options: ModelClientOptions): ModelClient {
  switch (config.provider) {
    case 'anthropic':
      if (options.fetch === undefined)
        throw new CadreError('internal', "the anthropic client needs the run's model transport");
      return createAnthropicClient(config, options.fetch, options.caps);
    case 'offline':
      return createOfflineClient(config);
    case 'replay':
      return createReplayClient(config);
  }
}
