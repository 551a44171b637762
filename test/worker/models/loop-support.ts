// Shared test helpers for the agent loop and the model clients: a run spec, a model config for
// the fake server, an injected tool runner, and a driver that collects a loop's events and result.
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events.js';
import {
  DEFAULT_CAPS,
  type ModelConfig,
  type WorkerRunResult,
  type WorkerRunSpec,
} from '../../../src/shared/run-spec.js';
import type { AgentLoopDeps, LoopTools } from '../../../src/worker/agent-loop.js';
import { runAgentLoop } from '../../../src/worker/agent-loop.js';
import { MessageChannel } from 'node:worker_threads';
import { modelEndpointOf, workerModelConfig } from '../../../src/host/agents/model-resolve.js';
import { serveModelChannel, type ModelChannel } from '../../../src/host/capabilities/model-http.js';
import { portEndpoint } from '../../../src/shared/endpoint.js';
import { createHostFetch } from '../../../src/worker/models/host-fetch.js';
import {
  createModelClient,
  type ModelClient,
  type ModelClientOptions,
  type ToolDefinition,
} from '../../../src/worker/models/model-client.js';
import { startFakeAnthropic, textReply, type FakeAnthropic } from '../../support/fake-anthropic.js';

/**
 * One fake server for the calling test file: started before its tests, closed after them, and
 * after each test cleared of its log and set back to answering "ok".
 */
export function useFakeServer(): { readonly server: FakeAnthropic } {
  const holder = {} as { server: FakeAnthropic };
  beforeAll(async () => {
    holder.server = await startFakeAnthropic();
  });
  afterAll(async () => {
    await holder.server.close();
  });
  afterEach(() => {
    closeModelChannels();
    holder.server.clearLog();
    holder.server.setResponder(() => textReply('ok'));
  });
  return holder;
}

const channels: { host: ModelChannel; close: () => void }[] = [];

/** Closes the model channels that `hostedModelClient` opened. */
export function closeModelChannels(): void {
  for (const c of channels.splice(0)) {
    c.host.close();
    c.close();
  }
}

/**
 * A model client wired as a run's is: the worker gets `config` with its secret replaced by the
 * placeholder, and its requests go over a model channel to the host side, which checks them,
 * puts the real secret back and makes the HTTP request.
 */
export function hostedModelClient(
  config: ModelConfig,
  options: Omit<ModelClientOptions, 'fetch'> = {},
): ModelClient {
  const channel = new MessageChannel();
  const endpoint = modelEndpointOf(config);
  const host = serveModelChannel(portEndpoint(channel.port1), {
    agentId: 'agent-1',
    agentType: 'general-purpose',
    baseURL: endpoint?.baseURL ?? 'http://127.0.0.1:1',
    ...(endpoint?.secret !== undefined ? { secret: endpoint.secret } : {}),
    projectDir: '/project',
    mode: 'default',
    audit: undefined,
  });
  channels.push({ host, close: () => (channel.port1.close(), channel.port2.close()) });
  return createModelClient(workerModelConfig(config), {
    ...options,
    fetch: createHostFetch(portEndpoint(channel.port2)),
  });
}

/** A model config pointing at a fake server (fast retries, short idle timeout). */
export function fakeModelConfig(url: string, over: Partial<ModelConfig> = {}): ModelConfig {
  return {
    provider: 'anthropic',
    model: 'claude-test-1',
    baseURL: url,
    apiKey: 'sk-test-key',
    maxTokens: 1024,
    streamIdleTimeoutMs: 2_000,
    maxRetries: 2,
    ...over,
  };
}

/** A run spec with sensible test defaults. */
export function makeSpec(over: Partial<WorkerRunSpec> = {}): WorkerRunSpec {
  return {
    agentId: 'agent-1',
    depth: 0,
    agentType: 'general-purpose',
    description: 'test run',
    system: 'You are a test agent.',
    prompt: 'Do the thing.',
    history: [],
    tools: [],
    extraTools: [],
    model: {
      provider: 'offline',
      model: 'offline',
      maxTokens: 1024,
      streamIdleTimeoutMs: 2_000,
      maxRetries: 0,
    },
    maxTurns: 10,
    permissionMode: 'default',
    cwd: '/project',
    caps: DEFAULT_CAPS,
    ...over,
  };
}

/** A definition for a tool name (the schema does not matter to the fake server). */
export function def(name: string): ToolDefinition {
  return { name, description: `The ${name} tool.`, input_schema: { type: 'object', properties: {} } };
}

/** One recorded tool call: when it started and ended. */
export interface ToolLog {
  name: string;
  input: unknown;
  start: number;
  end: number;
}

type Impl = (
  input: Record<string, unknown>,
) => Promise<{ content: string; isError: boolean }> | { content: string; isError: boolean };

/** Tools backed by the given implementations; every call is logged with its timing. */
export function fakeTools(impls: Record<string, Impl>): LoopTools & { log: ToolLog[] } {
  const log: ToolLog[] = [];
  return {
    log,
    definitions: Object.keys(impls).map(def),
    async run(name, input) {
      const start = performance.now();
      const impl = impls[name];
      if (impl === undefined) throw new Error(`test runner has no ${name}`);
      try {
        return await impl(input as Record<string, unknown>);
      } finally {
        log.push({ name, input, start, end: performance.now() });
      }
    },
  };
}

/** Sleeps. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs a loop to its end and returns every event and the result. */
export async function drive(
  deps: Partial<AgentLoopDeps> & { spec: WorkerRunSpec; client: ModelClient },
): Promise<{ events: AgentEvent[]; result: WorkerRunResult }> {
  const gen = runAgentLoop({
    tools: { definitions: [], run: () => Promise.reject(new Error('no tools')) },
    now: () => Date.now(),
    signal: new AbortController().signal,
    grace: { requested: () => false, message: () => '' },
    ...deps,
  });
  const events: AgentEvent[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}

/** Events of one type. */
export function ofType<T extends AgentEvent['type']>(
  events: AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}
