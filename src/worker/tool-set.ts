// The tools one run offers its model: the built-ins its grant names, the delegation tools and any
// agents exposed as tools, all running over the run's capability proxy. This is the table the loop
// looks calls up in; answering a call (refusals, faults, the cap) is `loop/tool-call.ts`'s job.
import type { GrantedCapabilities } from '../shared/capabilities.js';
import { CadreError } from '../shared/errors.js';
import type { WorkerRunSpec } from '../shared/run-spec.js';
import { taskOutputTool, taskStopTool } from './delegation/background-tools.js';
import { exposedAgentTool, taskTool } from './delegation/task-tool.js';
import { todoReadTool, todoWriteTool } from './delegation/todo-tools.js';
import { builtinTool } from './tools/index.js';
import { mcpTool } from './tools/mcp-tool.js';
import type { ServerToolDefinition } from './models/model-client.js';
import type { Tool, ToolContext, ToolDefinition, ToolResult } from './tools/tool.js';

/** The version of Anthropic's server-side web search tool cadre offers. */
const WEB_SEARCH_TOOL_TYPE = 'web_search_20250305';

/** Tools by name with their Messages API definitions, run in one context. */
export interface ToolTable {
  definitions: ToolDefinition[];
  /** Runs a tool on raw model input; throws `not_granted` for a name not in the table. */
  run(name: string, input: unknown, signal?: AbortSignal): Promise<ToolResult>;
}

/** The run's tools as the loop uses them. */
export interface ToolSet extends ToolTable {
  /** Tools the model's provider runs itself: WebSearch, when the host offers it. */
  serverTools: ServerToolDefinition[];
  /** Tools that delegate to subagents (safe to run in parallel). */
  isDelegation(name: string): boolean;
  /** MCP tools their server annotates read-only (safe to run in parallel). */
  isReadOnlyMcp(name: string): boolean;
}

/** The table of `tools` (a later tool of the same name replaces an earlier one), run in `ctx`. */
export function toolTable(tools: Iterable<Tool>, ctx: ToolContext): ToolTable {
  const byName = new Map<string, Tool>();
  for (const tool of tools) byName.set(tool.name, tool);
  return {
    definitions: [...byName.values()].map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema,
    })),
    run: (name, input) => {
      const tool = byName.get(name);
      if (tool) return tool.run(input, ctx);
      const available = [...byName.keys()].join(', ') || 'none';
      return Promise.reject(
        new CadreError('not_granted', `no tool named "${name}"; available: ${available}`),
      );
    },
  };
}

/** The delegation tools a grant may name, made for this run. */
function delegationTool(spec: WorkerRunSpec, name: string): Tool | undefined {
  switch (name) {
    case 'Task':
      return taskTool(spec.taskTypes);
    case 'TaskOutput':
      return taskOutputTool;
    case 'TaskStop':
      return taskStopTool;
    case 'TodoWrite':
      return todoWriteTool;
    case 'TodoRead':
      return todoReadTool;
    default:
      return undefined;
  }
}

/** Builds the tool set the host granted. */
export function buildToolSet(spec: WorkerRunSpec, caps: GrantedCapabilities, signal: AbortSignal): ToolSet {
  const tools = new Map<string, Tool>();
  for (const name of spec.tools) {
    const tool = delegationTool(spec, name) ?? builtinTool(name);
    if (tool) tools.set(name, tool);
  }
  const exposed = new Set<string>();
  const readOnlyMcp = new Set<string>();
  for (const extra of spec.extraTools) {
    // An exposed agent never replaces a tool already in the set (the host offers none that would).
    if (extra.kind === 'agent' && !tools.has(extra.name)) {
      tools.set(extra.name, exposedAgentTool(extra));
      exposed.add(extra.name);
    } else if (extra.kind === 'mcp' && !tools.has(extra.name)) {
      tools.set(extra.name, mcpTool(extra));
      if (extra.readOnly === true) readOnlyMcp.add(extra.name);
    }
  }
  const ctx: ToolContext = { caps, cwd: spec.cwd, limits: spec.caps, readState: new Map(), signal };
  const serverTools: ServerToolDefinition[] =
    spec.webSearch !== undefined && spec.tools.includes('WebSearch')
      ? [{ type: WEB_SEARCH_TOOL_TYPE, name: 'web_search', ...spec.webSearch }]
      : [];
  return {
    ...toolTable(tools.values(), ctx),
    serverTools,
    isDelegation: (name) => name === 'Task' || exposed.has(name),
    isReadOnlyMcp: (name) => readOnlyMcp.has(name),
  };
}
