// Builds what the not-in-effect checks need from the configuration and environment, and marks the
// loaded agents: each gets `notInEffect` (for `agents show`), and the load gets one warning per
// item the file asked for explicitly.
import type { LoadedAgent, RegistryIssue } from '../../shared/agent-definition.js';
import { modelConfigFor, pickModel, type ModelEnv } from '../agents/model-resolve.js';
import type { CadreConfig } from '../config.js';
import { configuredMcpServers } from '../mcp-servers.js';
import { webSearchUnavailable } from '../web/web-search-offer.js';
import { type NotInEffectContext, notInEffect } from './not-in-effect.js';

/** The context of one load: configured MCP servers and WebSearch availability per model name. */
function notInEffectContext(config: CadreConfig, env: ModelEnv): NotInEffectContext {
  const byModel = new Map<string, string | undefined>();
  return {
    mcpServers: configuredMcpServers(config),
    webSearchUnavailable: (model) => {
      if (!byModel.has(model)) byModel.set(model, webSearchWhy(model, config, env));
      return byModel.get(model);
    },
  };
}

function webSearchWhy(model: string, config: CadreConfig, env: ModelEnv): string | undefined {
  // `inherit` is decided by the parent at run time; at load time the configured default stands in.
  const name = pickModel(undefined, model, undefined, config);
  try {
    return webSearchUnavailable(
      modelConfigFor(name, config, env, { streamIdleTimeoutMs: 1 }),
      config.webSearch,
    );
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Sets `notInEffect` on each agent that has something not in effect; returns the warnings to report. */
export function markNotInEffect(
  agents: readonly LoadedAgent[],
  config: CadreConfig,
  env: ModelEnv,
): RegistryIssue[] {
  const ctx = notInEffectContext(config, env);
  const warnings: RegistryIssue[] = [];
  for (const agent of agents) {
    const { marks, warn } = notInEffect(agent, ctx);
    if (marks.length > 0) agent.notInEffect = marks;
    for (const w of warn)
      warnings.push({ path: agent.path, field: w.field, message: `${w.item}: not in effect: ${w.reason}` });
  }
  return warnings;
}
