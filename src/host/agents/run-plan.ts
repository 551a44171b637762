// The planning step of a launch: from a definition, the task's request, the parent (for a child)
// and the runtime's config, everything a run will be held to — its grant, model, time limits,
// turns, budget and caps. Pure: no I/O, so every rule is checked on its own.
import type { LoadedAgent } from '../../shared/agent-definition.js';
import { CadreError } from '../../shared/errors.js';
import { DEFAULT_CAPS, type ModelConfig, type WorkerRunSpec } from '../../shared/run-spec.js';
import type { TaskInput } from '../../shared/task.js';
import type { CadreConfig } from '../config.js';
import { childGrant, rootGrant, type Grant } from './grant.js';
import { modelConfigFor, pickModel, type ModelEnv } from './model-resolve.js';
import type { CoreOptions } from './runtime-core.js';

/** What a run is planned from. */
export interface PlanRequest {
  def: LoadedAgent;
  input: TaskInput;
  /** The parent of a child run: what it was granted, the model it runs on, its depth. */
  parent: { grant: Grant; modelName: string; depth: number } | undefined;
  config: CadreConfig;
  env: ModelEnv;
  options: CoreOptions;
  /** The cassette a replaying runtime plays back. */
  cassette: string | undefined;
}

/** What a run is held to. */
export interface RunPlan {
  grant: Grant;
  model: ModelConfig;
  /** 0 for a top-level run; its parent's plus one for a child. */
  depth: number;
  /** Wall clock and idle watchdog, in ms. */
  limits: { timeoutMs: number; idleTimeoutMs: number };
  maxTurns: number;
  /** The run's own token budget (the tree's is the tree's). */
  tokenBudget: number | undefined;
  caps: WorkerRunSpec['caps'];
}

/** Turns when neither the task, the definition nor the runtime says. */
const DEFAULT_MAX_TURNS = 50;

/**
 * Plans a run. Throws a CadreError for a request that cannot run: a model name no provider serves,
 * a replay without a cassette, or recording a run that would send no model requests.
 */
export function planRun(request: PlanRequest): RunPlan {
  const { def, input, parent, config, options } = request;
  const grant = parent
    ? childGrant(parent.grant, def, input.permission_mode)
    : rootGrant(def, input.permission_mode ?? config.permissions.defaultMode, config.maxDepth);
  // The runtime's model (the CLI's --model) stands in for the task's default at the top level only.
  const modelName =
    options.model && !parent
      ? pickModel(input.model ?? options.model, def.model, undefined, config)
      : pickModel(input.model, def.model, parent?.modelName, config);
  const timeoutMs = (input.timeout ?? def.timeout ?? config.timeout) * 1000;
  const idleTimeoutMs = (def.idleTimeout ?? config.idleTimeout) * 1000;
  const model = modelConfigFor(modelName, config, request.env, {
    streamIdleTimeoutMs: Math.min(idleTimeoutMs, timeoutMs),
    ...(request.cassette !== undefined ? { cassette: request.cassette } : {}),
    ...(options.record ? { record: true } : {}),
  });
  if (options.record && model.provider === 'offline')
    throw new CadreError(
      'invalid_input',
      `options.record: this run would use the embedded offline model, which sends no model requests to record; set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) or pass options.model provider:model to record a real model`,
    );
  return {
    grant,
    model,
    depth: parent ? parent.depth + 1 : 0,
    limits: { timeoutMs, idleTimeoutMs },
    maxTurns: input.max_turns ?? def.maxTurns ?? options.maxTurns ?? DEFAULT_MAX_TURNS,
    tokenBudget: input.token_budget ?? def.tokenBudget,
    caps: runCaps(config),
  };
}

/**
 * A run's caps: the defaults, with the reply and fan-out caps from config. The conversation cap is never below
 * one whole reply, so raising the reply caps cannot end a run at its next turn for the reply the
 * caps just allowed.
 */
function runCaps(
  config: Pick<
    CadreConfig,
    'maxReplyChars' | 'maxToolInputChars' | 'maxToolCallsPerMessage' | 'maxTasksPerMessage'
  >,
): WorkerRunSpec['caps'] {
  const { maxReplyChars, maxToolInputChars, maxToolCallsPerMessage, maxTasksPerMessage } = config;
  const maxConversationChars = Math.max(DEFAULT_CAPS.maxConversationChars, maxReplyChars + maxToolInputChars);
  return {
    ...DEFAULT_CAPS,
    maxReplyChars,
    maxToolInputChars,
    maxConversationChars,
    maxToolCallsPerMessage,
    maxTasksPerMessage,
  };
}
