// How an MCP server is configured, in the shape users already write for Claude Code (`.mcp.json`,
// `mcpServers` in config files and in agent front matter): stdio servers (`command`, `args`,
// `env`) and remote ones (`type: "http"` Streamable HTTP, or legacy `type: "sse"`), plus cadre's
// own per-server limits. Values may hold `${VAR}` / `${VAR:-default}`, expanded by the host.
import * as z from 'zod';
import { rangedNumber } from './ranges.js';

const stringMap = z.record(z.string(), z.string());

/** A server name: it becomes part of tool names (`mcp__<server>__<tool>`), so `__` is reserved. */
export const McpServerName = z
  .string()
  .regex(
    /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/,
    'must be letters, digits, "-" and single "_" (it becomes part of tool names such as mcp__github__create_issue)',
  )
  .max(40, 'must be at most 40 characters (tool names are at most 64)');

/** Limits every server type takes. */
const limits = {
  /** Seconds one tool call may take before it is cancelled (default 120). */
  timeout: rangedNumber('mcpTimeout').optional(),
  /** Seconds to start, initialise and list tools (default 30). */
  startupTimeout: rangedNumber('mcpStartupTimeout').optional(),
  /** Largest result text handed to the model, in characters (default 100,000). */
  maxOutputChars: rangedNumber('mcpMaxOutputChars').optional(),
  /** Leaves the server configured but never started. */
  disabled: z.boolean().optional(),
};

/** The sandbox of a stdio server: on by default (project read-only, network allowed). */
const McpSandbox = z.union([
  z.boolean(),
  z.strictObject({
    /** Network access (default true: most servers talk to an API). */
    network: z.boolean().optional(),
    /** Directories the server may write besides its own state directory. */
    writable: z.array(z.string().min(1)).optional(),
  }),
]);
/** The sandbox setting of a stdio server. */
type McpSandbox = z.infer<typeof McpSandbox>;

/** A server cadre starts as a child process and talks to over stdin/stdout. */
const McpStdioServer = z.strictObject({
  type: z.literal('stdio'),
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  /** Working directory (default: the project directory). */
  cwd: z.string().min(1).optional(),
  sandbox: McpSandbox.optional(),
  ...limits,
});
/** A stdio server. */
type McpStdioServer = z.infer<typeof McpStdioServer>;

/** A remote server: Streamable HTTP (`http`) or the legacy HTTP+SSE transport (`sse`). */
const McpRemoteServer = z.strictObject({
  type: z.enum(['http', 'sse']),
  url: z.string().min(1, 'must not be empty'),
  headers: stringMap.optional(),
  ...limits,
});
/** A remote server. */
type McpRemoteServer = z.infer<typeof McpRemoteServer>;

/**
 * Fills in `type` as Claude Code reads it (absent means stdio; cadre also takes a lone `url` as
 * http) and maps `streamable-http` to `http`, so the union below can pick a branch by `type`.
 */
function withType(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  if (v.type === 'streamable-http' || v.type === 'streamableHttp') return { ...v, type: 'http' };
  if (v.type !== undefined) return v;
  return { ...v, type: v.url !== undefined && v.command === undefined ? 'http' : 'stdio' };
}

/** One server's configuration. */
export const McpServerConfig = z.preprocess(
  withType,
  z.discriminatedUnion('type', [McpStdioServer, McpRemoteServer]),
);
/** One server's configuration, `type` filled in. */
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** The `mcpServers` map of a config file or `.mcp.json`. */
export const McpServersConfig = z.record(McpServerName, McpServerConfig);
/** Servers by name. */
export type McpServersConfig = z.infer<typeof McpServersConfig>;

/** The keys a server entry may have, for "did you mean" hints. */
export const MCP_SERVER_KEYS: readonly string[] = [
  ...new Set([...Object.keys(McpStdioServer.shape), ...Object.keys(McpRemoteServer.shape)]),
];

/**
 * An agent's `mcpServers` entry, resolved: a configured server it names, or a server defined
 * inline for that agent's runs only.
 */
export type McpServerRef = { name: string } | { name: string; inline: McpServerConfig };
