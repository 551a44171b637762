// MCP tool names, in one place: `mcp__server__tool`, `mcp__server__*` (every tool of a server) and
// Claude Code's bare `mcp__server` (documented as "all tools of that server"). Agent tool lists,
// permission rules and the policy all read names through these functions, so the MCP servers of a
// configuration plug in here and nowhere else.

const SERVER = /^[A-Za-z0-9_-]+$/;
const TOOL = /^(?:[A-Za-z0-9_-]+|\*)$/;
const SERVER_ONLY = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** An MCP name split into its server and tool (`*` for every tool of the server). */
export interface McpName {
  server: string;
  tool: string;
}

/** True when `name` starts like an MCP name (`mcp__`), whether or not it is well formed. */
export function looksLikeMcp(name: string): boolean {
  return name.startsWith('mcp__');
}

/**
 * Parses an MCP name as a tool list writes it. `mcp__server` means every tool of the server and
 * comes back as tool `*`. Anything else that is not `mcp__server__tool` or `mcp__server__*` is
 * undefined.
 */
export function parseMcpName(name: string): McpName | undefined {
  if (!name.startsWith('mcp__')) return undefined;
  const rest = name.slice(5);
  // The server ends at the first `__` (a server name never holds one); the tool is the rest.
  const split = rest.indexOf('__', 1);
  if (split === -1) return SERVER_ONLY.test(rest) ? { server: rest, tool: '*' } : undefined;
  const server = rest.slice(0, split);
  const tool = rest.slice(split + 2);
  return SERVER.test(server) && TOOL.test(tool) ? { server, tool } : undefined;
}

/** The canonical spelling of a parsed name: `mcp__server__tool` or `mcp__server__*`. */
export function mcpToolName(name: McpName): string {
  return `mcp__${name.server}__${name.tool}`;
}

/** The server an MCP tool name belongs to, or undefined for a name that is not one. */
export function mcpServerOf(name: string): string | undefined {
  return parseMcpName(name)?.server;
}

/**
 * Whether MCP rule or tool-list `pattern` covers the concrete tool `tool` (`mcp__s__t`):
 * the same name, `mcp__s__*`, or the bare server `mcp__s`.
 */
export function mcpPatternMatches(pattern: string, tool: string): boolean {
  if (pattern === tool) return true;
  const p = parseMcpName(pattern);
  const t = parseMcpName(tool);
  if (p === undefined || t === undefined) return false;
  return p.server === t.server && (p.tool === '*' || p.tool === t.tool);
}
