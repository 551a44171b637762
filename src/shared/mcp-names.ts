// MCP tool names, in one place: `mcp__server__tool`, `mcp__server__*` (every tool of a server) and
// Claude Code's bare `mcp__server` (documented as "all tools of that server"). Agent tool lists,
// permission rules and the policy all read names through these functions, so the MCP servers of a
// configuration plug in here and nowhere else.

/** A server or tool name part: what Claude Code and the MCP SDK allow in a tool name. */
const PART = '[A-Za-z0-9_-]+?';
const TOOL_PART = '(?:[A-Za-z0-9_-]+|\\*)';

const FULL = new RegExp(`^mcp__(${PART})__(${TOOL_PART})$`);
const SERVER_ONLY = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)$/;

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
  const full = FULL.exec(name);
  if (full) return { server: full[1] ?? '', tool: full[2] ?? '' };
  const server = SERVER_ONLY.exec(name);
  if (server) return { server: server[1] ?? '', tool: '*' };
  return undefined;
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
