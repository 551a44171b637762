// The tools one run offers its model: the built-ins its grant names, the delegation tools and any
// agents exposed as tools, all running over the run's capability proxy.
import type { GrantedCapabilities } from '../shared/capabilities.js';
import type { WorkerRunSpec } from '../shared/run-spec.js';
import { taskOutputTool, taskStopTool } from './delegation/background-tools.js';
import { exposedAgentTool, taskTool } from './delegation/task-tool.js';
import { todoReadTool, todoWriteTool } from './delegation/todo-tools.js';
import { toWire } from '../shared/errors.js';
import { BUILTIN_TOOLS, capResult } from './tools/index.js';
import { mcpTool } from './tools/mcp-tool.js';
import type { ServerToolDefinition } from './models/model-client.js';
import type { Tool, ToolContext, ToolDefinition, ToolResult } from './tools/tool.js';

/** The version of Anthropic's server-side web search tool cadre offers. */
const WEB_SEARCH_TOOL_TYPE = 'web_search_20250305';

/** The run's tools as the loop uses them. */
export interface ToolSet {
  definitions: ToolDefinition[];
  /** Tools the model's provider runs itself: WebSearch, when the host offers it. */
  serverTools: ServerToolDefinition[];
  run(name: string, input: unknown, signal?: AbortSignal): Promise<ToolResult>;
  /** Tools that delegate to subagents (safe to run in parallel). */
  isDelegation(name: string): boolean;
  /** MCP tools their server annotates read-only (safe to run in parallel). */
  isReadOnlyMcp(name: string): boolean;
}

/** Builds the tool set the host granted. */
export function buildToolSet(spec: WorkerRunSpec, caps: GrantedCapabilities, signal: AbortSignal): ToolSet {
  const delegation: Record<string, () => Tool> = {
    Task: () => taskTool(spec.taskTypes),
    TaskOutput: () => taskOutputTool,
    TaskStop: () => taskStopTool,
    TodoWrite: () => todoWriteTool,
    TodoRead: () => todoReadTool,
  };
  const tools = new Map<string, Tool>();
  for (const name of spec.tools) {
    const make = Object.hasOwn(delegation, name) ? delegation[name] : undefined;
    const builtin = Object.hasOwn(BUILTIN_TOOLS, name)
      ? (BUILTIN_TOOLS as Record<string, Tool | undefined>)[name]
      : undefined;
    const tool = make?.() ?? builtin;
    if (tool) tools.set(name, tool);
  }
  const exposed = new Set<string>();
  const readOnlyMcp = new Set<string>();
  for (const extra of spec.extraTools) {
    if (extra.kind === 'agent') {
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
    definitions: [...tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema,
    })),
    serverTools,
    run: (name, input) => {
      const tool = tools.get(name);
      if (!tool) {
        return Promise.resolve({
          content: `unknown tool "${name}"; available: ${[...tools.keys()].join(', ')}`,
          isError: true,
        });
      }
      return runOne(tool, input, ctx);
    },
    isDelegation: (name) => name === 'Task' || exposed.has(name),
    isReadOnlyMcp: (name) => readOnlyMcp.has(name),
  };
}

/** Runs one tool; a thrown fault becomes an error result, and output is capped. */
async function runOne(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  let result: ToolResult;
  try {
    result = await tool.run(input, ctx);
  } catch (error) {
    const wire = toWire(error);
    result = { content: `${wire.code}: ${tool.name} failed: ${wire.message}`, isError: true };
  }
  const capped = {
    content: capResult(result.content, ctx.limits.maxToolResultChars),
    isError: result.isError,
  };
  return result.images && result.images.length > 0 ? { ...capped, images: result.images } : capped;
}
