// The names MCP tools have for the model: `mcp__<server>__<tool>`, only `[A-Za-z0-9_-]`, at most 64
// characters (the Messages API's limit). A tool name that had to change (other characters, too
// long, or clashing with another tool of the server once changed) gets a short hash of the real
// name as a suffix. The names are keys of a lookup table: a name is never parsed back into a
// server and a tool, so no spelling of a name can reach a tool it does not stand for.
import { createHash } from 'node:crypto';

/** The Messages API's longest tool name. */
export const MAX_TOOL_NAME = 64;

const SAFE = /^[A-Za-z0-9_-]+$/;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** The name for `tool` of `server` (a server name is already safe and at most 40 characters). */
export function mcpToolName(server: string, tool: string): string {
  const prefix = `mcp__${server}__`;
  if (SAFE.test(tool) && prefix.length + tool.length <= MAX_TOOL_NAME) return `${prefix}${tool}`;
  return hashedName(prefix, server, tool);
}

function hashedName(prefix: string, server: string, tool: string): string {
  const suffix = `_${shortHash(`${server}\u0000${tool}`)}`;
  const room = Math.max(1, MAX_TOOL_NAME - prefix.length - suffix.length);
  const safe = tool.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, room);
  return `${prefix}${safe}${suffix}`;
}

/**
 * Names for all tools of one server, in order: `mcpToolName`, except that a tool whose name is
 * taken by an earlier one (possible only for changed names) gets a longer hash instead.
 */
export function serverToolNames(server: string, tools: readonly string[]): string[] {
  const taken = new Set<string>();
  return tools.map((tool) => {
    let name = mcpToolName(server, tool);
    for (let n = 1; taken.has(name); n++) name = hashedName(`mcp__${server}__`, server, `${tool}\u0000${n}`);
    taken.add(name);
    return name;
  });
}
