// The tool table of the worker: built-in tools by name, their Messages API definitions, and
// `runTool`, the one entry the agent loop calls (validation errors, capability failures and
// thrown faults all come back as results, capped to the run's result size).
import { toWire } from '../../shared/errors.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { lsTool } from './ls.js';
import { readTool } from './read.js';
import { webFetchTool } from './web-fetch.js';
import type { Tool, ToolContext, ToolDefinition, ToolResult } from './tool.js';
import { writeTool } from './write.js';

export type { Tool, ToolContext, ToolDefinition, ToolResult } from './tool.js';

/** The file and shell tools this directory implements. */
export const BUILTIN_TOOLS: Readonly<Record<string, Tool>> = {
  Read: readTool,
  Write: writeTool,
  Edit: editTool,
  Glob: globTool,
  Grep: grepTool,
  LS: lsTool,
  Bash: bashTool,
  WebFetch: webFetchTool,
};

const registry = new Map<string, Tool>(Object.entries(BUILTIN_TOOLS));

/** Adds (or replaces) a tool, e.g. the agent loop's Task and Todo tools. */
export function registerTool(tool: Tool): void {
  registry.set(tool.name, tool);
}

/**
 * The Messages API `tools` entries for `names`, in that order. Names with no registered tool
 * (mcp tools, exposed agents) are left out: the loop offers those from their own definitions.
 */
export function toolDefinitionsFor(names: readonly string[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const name of names) {
    const tool = registry.get(name);
    if (tool) out.push({ name: tool.name, description: tool.description, input_schema: tool.inputSchema });
  }
  return out;
}

/** Cuts `content` to at most `max` characters, saying how much was dropped. */
export function capResult(content: string, max: number): string {
  if (content.length <= max) return content;
  const marker = `\n... [output truncated: ${content.length - max} more characters not shown of ${content.length}]`;
  return content.slice(0, Math.max(0, max - marker.length)) + marker;
}

/**
 * Runs tool `name` on raw model input. Never throws: an unknown tool, bad input, a refused
 * capability or a thrown fault all become `isError` results the model can read.
 */
export async function runTool(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const tool = registry.get(name);
  let result: ToolResult;
  if (!tool) {
    result = { content: `not_granted: no tool named "${name}" is available to this agent.`, isError: true };
  } else if (ctx.signal?.aborted) {
    result = { content: `cancelled: ${name} was not run because the run is stopping.`, isError: true };
  } else {
    try {
      result = await tool.run(input, ctx);
    } catch (error) {
      const wire = toWire(error);
      result = { content: `${wire.code}: ${name} failed: ${wire.message}`, isError: true };
    }
  }
  return { content: capResult(result.content, ctx.limits.maxToolResultChars), isError: result.isError };
}
