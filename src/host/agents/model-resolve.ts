// Which model a run uses and how to reach it: call > definition > `inherit` (the parent's) >
// configured default; aliases map through config; `provider:model` names a configured provider;
// with no key configured anywhere, the embedded offline model.
import { closest } from '../../shared/closest.js';
import { CadreError } from '../../shared/errors.js';
import { DEFAULT_MODEL_BASE_URL, HOST_CREDENTIAL } from '../../shared/model-wire.js';
import type { ModelConfig } from '../../shared/run-spec.js';
import type { CadreConfig } from '../config.js';

/** Built-in alias targets, overridable in config `models`. */
const DEFAULT_ALIASES = {
  haiku: 'claude-haiku-5-5',
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
} as const;

/** The environment variables the anthropic client honours. */
export interface ModelEnv {
  ANTHROPIC_API_KEY?: string | undefined;
  ANTHROPIC_AUTH_TOKEN?: string | undefined;
  ANTHROPIC_BASE_URL?: string | undefined;
  [name: string]: string | undefined;
}

/** The names a definition's `model` may take besides a model id. */
const MODEL_ALIASES: readonly string[] = ['haiku', 'sonnet', 'opus', 'inherit'];

/**
 * What is wrong with a model name, or undefined: a word that is one typo away from an alias
 * (`sonet`) is a mistake, not a model id, and a model id has no spaces. The same check serves
 * agent definitions, the `--model` flag and a batch task's `model`.
 */
export function modelNameProblem(model: string, extra: readonly string[] = []): string | undefined {
  const names = [...MODEL_ALIASES, ...extra];
  const typo = /^[a-z]+$/.test(model) && !names.includes(model) ? closest(model, names) : undefined;
  if (typo !== undefined) return `unknown model alias "${model}" (did you mean "${typo}"?)`;
  if (/\s/.test(model)) return `"${model}" is not a model id (no spaces allowed)`;
  return undefined;
}

/** Picks the model name: call > definition > inherit (parent) > configured default. */
export function pickModel(
  call: string | undefined,
  definition: string | undefined,
  parent: string | undefined,
  config: CadreConfig,
): string {
  if (call && call !== 'inherit') return call;
  if (definition && definition !== 'inherit') return definition;
  if (parent) return parent;
  return config.defaultModel ?? 'sonnet';
}

/** True when no real model is reachable: no key, token or base URL in the environment. */
function noModelConfigured(env: ModelEnv): boolean {
  return !env.ANTHROPIC_API_KEY && !env.ANTHROPIC_AUTH_TOKEN && !env.ANTHROPIC_BASE_URL;
}

/** Builds a run's ModelConfig from a model name. Throws a user-fault CadreError for bad names. */
export function modelConfigFor(
  name: string,
  config: CadreConfig,
  env: ModelEnv,
  extra: { streamIdleTimeoutMs: number; cassette?: string; record?: boolean },
): ModelConfig {
  const base = { maxTokens: 8192, streamIdleTimeoutMs: extra.streamIdleTimeoutMs, maxRetries: 2 };
  if (name === 'offline') return { ...base, provider: 'offline', model: 'offline' };
  if (name === 'replay' || extra.cassette !== undefined) {
    if (extra.cassette === undefined)
      throw new CadreError('invalid_input', 'model "replay" needs a cassette (options.replay FILE)');
    return { ...base, provider: 'replay', model: 'replay', cassette: extra.cassette };
  }
  const colon = name.indexOf(':');
  if (colon > 0) {
    const providerName = name.slice(0, colon);
    const provider = config.providers[providerName];
    if (!provider) {
      const known = Object.keys(config.providers);
      throw new CadreError(
        'invalid_input',
        `model "${name}": no provider "${providerName}" in config providers (${known.length ? `configured: ${known.join(', ')}` : 'none configured'})`,
      );
    }
    const apiKey = provider.apiKeyEnv ? env[provider.apiKeyEnv] : undefined;
    const authToken = provider.authTokenEnv ? env[provider.authTokenEnv] : undefined;
    return {
      ...base,
      provider: 'anthropic',
      model: resolveAlias(name.slice(colon + 1), config),
      baseURL: provider.baseURL,
      // Local servers (Ollama, vLLM) often need no key; the SDK still wants one.
      ...(authToken ? { authToken } : { apiKey: apiKey ?? 'unused' }),
      ...(extra.record ? { record: true } : {}),
    };
  }
  if (noModelConfigured(env)) return { ...base, provider: 'offline', model: 'offline' };
  return {
    ...base,
    provider: 'anthropic',
    model: resolveAlias(name, config),
    ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    ...(env.ANTHROPIC_API_KEY ? { apiKey: env.ANTHROPIC_API_KEY } : {}),
    ...(env.ANTHROPIC_AUTH_TOKEN ? { authToken: env.ANTHROPIC_AUTH_TOKEN } : {}),
    ...(!env.ANTHROPIC_API_KEY && !env.ANTHROPIC_AUTH_TOKEN ? { apiKey: 'unused' } : {}),
    ...(extra.record ? { record: true } : {}),
  };
}

/** Maps haiku/sonnet/opus through config, then the built-in defaults. */
function resolveAlias(name: string, config: CadreConfig): string {
  if (name === 'haiku' || name === 'sonnet' || name === 'opus')
    return config.models[name] ?? DEFAULT_ALIASES[name];
  return name;
}

/**
 * The ModelConfig a worker receives: its secret replaced by HOST_CREDENTIAL (the host puts the
 * real one in the request headers) and the endpoint spelled out, so the worker's SDK never falls
 * back to an environment variable or a default of its own.
 */
export function workerModelConfig(model: ModelConfig): ModelConfig {
  if (model.provider !== 'anthropic') return model;
  return {
    ...model,
    baseURL: model.baseURL ?? DEFAULT_MODEL_BASE_URL,
    ...(model.apiKey !== undefined ? { apiKey: HOST_CREDENTIAL } : {}),
    ...(model.authToken !== undefined ? { authToken: HOST_CREDENTIAL } : {}),
  };
}

/** The endpoint a run's model requests may reach and the secret the host sends there. */
export function modelEndpointOf(model: ModelConfig): { baseURL: string; secret?: string } | undefined {
  if (model.provider !== 'anthropic') return undefined;
  // The worker's client sends the key when there is one, else the token (src/worker/models/anthropic.ts).
  const secret = model.apiKey ?? model.authToken;
  return { baseURL: model.baseURL ?? DEFAULT_MODEL_BASE_URL, ...(secret !== undefined ? { secret } : {}) };
}
