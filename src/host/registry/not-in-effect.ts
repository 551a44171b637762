// What a definition asks for that cadre does not apply, said once and used twice: as load-time
// warnings and as the marks `cadre agents show` prints. Some of it is fixed by the file alone
// (`isolation`, `output`: not built yet), some depends on the configuration and environment (an
// MCP tool whose server is not configured, WebSearch on an endpoint that does not offer it).
import type { AgentDefinition, NotInEffect } from '../../shared/agent-definition.js';
import { mcpServerOf } from '../../shared/mcp-names.js';
import { ToolName } from '../../shared/tools.js';

/** What the configuration-dependent checks need. */
export interface NotInEffectContext {
  /** MCP servers the configuration provides. */
  mcpServers: ReadonlySet<string>;
  /** Why WebSearch cannot run for a definition of this model, or undefined when it can. */
  webSearchUnavailable: (model: string) => string | undefined;
}

/** The fields that do nothing yet, whatever the configuration. */
export function staticNotInEffect(def: Pick<AgentDefinition, 'isolation' | 'output'>): NotInEffect[] {
  const out: NotInEffect[] = [];
  if (def.isolation !== undefined)
    out.push({
      field: 'isolation',
      item: def.isolation,
      reason: 'cadre does not run agents in a git worktree yet; the agent works in the project directory',
    });
  if (def.output !== undefined)
    out.push({
      field: 'output',
      item: def.output === 'handoff' ? 'handoff' : 'JSON schema',
      reason: 'structured output is not built yet; the agent returns its final text as written',
    });
  return out;
}

/**
 * Everything `def` asks for that is not in effect under `ctx`. `warn` lists the items a load
 * should warn about: WebSearch only when the tools field names it (an agent that inherits every
 * tool is not told about each one it lacks).
 */
export function notInEffect(
  def: AgentDefinition,
  ctx: NotInEffectContext,
): { marks: NotInEffect[]; warn: NotInEffect[] } {
  const marks = staticNotInEffect(def);
  const warn: NotInEffect[] = [];
  // The load warns about missing MCP servers once per server (load-registry's mcpNameWarnings);
  // here each tool is only marked, for `agents show`.
  const own = new Set((def.mcpServers ?? []).map((s) => s.name));
  for (const tool of def.tools) {
    const server = mcpServerOf(tool);
    if (server === undefined || ctx.mcpServers.has(server) || own.has(server)) continue;
    marks.push({ field: 'tools', item: tool, reason: `no MCP server "${server}" is configured` });
  }
  if (def.tools.includes('WebSearch')) {
    const why = ctx.webSearchUnavailable(def.model);
    if (why !== undefined) {
      const mark = { field: 'tools', item: 'WebSearch', reason: why };
      marks.push(mark);
      if (!ToolName.options.every((t) => def.tools.includes(t))) warn.push(mark);
    }
  }
  return { marks, warn };
}
