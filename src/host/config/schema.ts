// The `.cadre/config.json` schema: what a project or user config file may contain, field by field.
// Strict at every level so a mistyped key is reported instead of silently doing nothing.
import * as z from 'zod';
import { MCP_SERVER_KEYS, McpServersConfig } from '../../shared/mcp-config.js';
import { PermissionMode } from '../../shared/task.js';
import { rangedNumber as ranged } from '../../shared/ranges.js';

const nonEmpty = z.string().min(1, 'must not be empty');
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** Permission rules such as `Bash(git status:*)`, `Read(src/**)`, `mcp__github__*`. */
const PermissionRules = z.array(nonEmpty);
/** A list of permission rules. */
type PermissionRules = z.infer<typeof PermissionRules>;

/** The `permissions` block. Rule lists from the user and project files are concatenated. */
const PermissionsConfig = z.strictObject({
  allow: PermissionRules.optional(),
  ask: PermissionRules.optional(),
  deny: PermissionRules.optional(),
  defaultMode: PermissionMode.optional(),
  additionalDirectories: z.array(nonEmpty).optional(),
});
/** The `permissions` block. */
type PermissionsConfig = z.infer<typeof PermissionsConfig>;

/** One Anthropic-compatible endpoint; secrets are named by env var, never written in the file. */
export const ProviderConfig = z.strictObject({
  baseURL: z.url({ message: 'must be a URL such as http://localhost:11434' }),
  apiKeyEnv: envName.optional(),
  authTokenEnv: envName.optional(),
});
/** One provider. */
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** What the `haiku` / `sonnet` / `opus` aliases mean. */
export const ModelAliases = z.strictObject({
  haiku: nonEmpty.optional(),
  sonnet: nonEmpty.optional(),
  opus: nonEmpty.optional(),
});
/** Model alias mapping. */
export type ModelAliases = z.infer<typeof ModelAliases>;

/** How the sandbox for shell commands is chosen. */
export const SandboxMode = z.enum(['auto', 'required', 'off']);
/** A sandbox mode. */
export type SandboxMode = z.infer<typeof SandboxMode>;

const absolutePath = z.string().regex(/^\//, 'must be an absolute path');

/**
 * The `sandbox` block. `"sandbox": "off"` is short for `{ "mode": "off" }`. Paths in the lists are
 * relative to the file's directory base (project or home) unless absolute or `~/`.
 */
export const SandboxConfig = z.preprocess(
  (value) => (typeof value === 'string' ? { mode: value } : value),
  z.strictObject({
    mode: SandboxMode.optional(),
    /** An absolute path to the bwrap executable; never looked up on PATH or in the project. */
    bwrapPath: absolutePath.optional(),
    /** More paths commands may read (read-only). */
    allowRead: z.array(nonEmpty).optional(),
    /** Paths hidden from commands, on top of the built-in credential list. */
    denyRead: z.array(nonEmpty).optional(),
    /** More project-relative paths that file tools always ask before writing and commands cannot write. */
    protect: z.array(nonEmpty).optional(),
  }),
);
/** The `sandbox` block. */
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** How agents are isolated from the host: a worker thread, or a child process for a hard memory cap. */
export const IsolationMode = z.enum(['thread', 'process']);
/** An isolation mode. */
export type IsolationMode = z.infer<typeof IsolationMode>;

// --- WebFetch and WebSearch ---

const domain = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/, {
    message: 'must be a domain such as example.com (no scheme, no wildcard)',
  });
const privateHost = z.string().regex(/^(?:[A-Za-z0-9.-]+|[0-9a-fA-F:.]+)(?:\/\d{1,3})?$/, {
  message: 'must be a host name, an IP address or a range such as 10.0.0.0/8',
});

/**
 * The `webFetch` block. WebFetch never connects to private, loopback or link-local addresses;
 * `allowPrivate` names the hosts, addresses or ranges (CIDR) the user trusts anyway (an intranet
 * wiki, a local docs server).
 */
export const WebFetchConfig = z.strictObject({
  allowPrivate: z.array(privateHost).optional(),
  /** Most bytes of one response body read (default 5 MiB); the rest is cut off. */
  maxBytes: ranged('webFetch.maxBytes').optional(),
  /** Seconds one fetch may take, redirects included (default 30). */
  timeout: ranged('webFetch.timeout').optional(),
});
/** The `webFetch` block. */
export type WebFetchConfig = z.infer<typeof WebFetchConfig>;

/**
 * The `webSearch` block: how WebSearch (Anthropic's server-side web search tool) is offered. The
 * domain lists go to the search as written; `endpoints` names base URLs besides Anthropic's API
 * that offer the tool (a proxy that forwards to it).
 */
export const WebSearchConfig = z.strictObject({
  allowedDomains: z.array(domain).optional(),
  blockedDomains: z.array(domain).optional(),
  /** Most searches per model request (default: the provider's). */
  maxUses: ranged('webSearch.maxUses').optional(),
  endpoints: z.array(z.url({ message: 'must be a URL such as https://proxy.example.com' })).optional(),
});
/** The `webSearch` block. */
export type WebSearchConfig = z.infer<typeof WebSearchConfig>;

// --- end WebFetch and WebSearch ---

/**
 * One config file as written. `agents` entries are checked by the registry (one bad agent must
 * not void the rest of the file), so here they only need to be objects.
 */
export const ConfigFile = z.strictObject({
  $schema: z.string().optional(),
  agents: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  permissions: PermissionsConfig.optional(),
  sandbox: SandboxConfig.optional(),
  models: ModelAliases.optional(),
  defaultModel: nonEmpty.optional(),
  providers: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'provider names are lowercase'), ProviderConfig)
    .optional(),
  concurrency: ranged('concurrency').optional(),
  queueLimit: ranged('queueLimit').optional(),
  maxDepth: ranged('maxDepth').optional(),
  tokenBudget: ranged('tokenBudget').optional(),
  timeout: ranged('timeout').optional(),
  idleTimeout: ranged('idleTimeout').optional(),
  isolation: IsolationMode.optional(),
  memoryLimitMb: ranged('memoryLimitMb').optional(),
  transcriptsDir: nonEmpty.optional(),
  /** cadre's user data directory; each project's records go under `<dataDir>/projects/<slug>/`. */
  dataDir: nonEmpty.optional(),
  /** Tool calls one model message may make; the rest are answered "limit reached, do not retry". */
  maxToolCallsPerMessage: ranged('maxToolCallsPerMessage').optional(),
  /** Subagents (Task and agent tools) one model message may launch. */
  maxTasksPerMessage: ranged('maxTasksPerMessage').optional(),
  /** Subagents one agent tree may launch in all (every message, every depth, background runs). */
  maxSubagents: ranged('maxSubagents').optional(),
  /** Caps on one model reply: at least a short answer, at most what a worker can safely copy and clone. */
  maxReplyChars: ranged('maxReplyChars').optional(),
  maxToolInputChars: ranged('maxToolInputChars').optional(),
  webFetch: WebFetchConfig.optional(),
  webSearch: WebSearchConfig.optional(),
  /** MCP servers by name, as in Claude Code's `.mcp.json` (see shared/mcp-config.ts). */
  mcpServers: McpServersConfig.optional(),
  /** Threads kept started ahead of the Task blocks a delegating run's reply has begun (0: none). */
  prestartThreads: ranged('prestartThreads').optional(),
  /** Remember how wide each agent fans out and start that many threads ahead in its next runs. */
  prestartLearn: z.boolean().optional(),
});
/** One config file as written. */
export type ConfigFile = z.infer<typeof ConfigFile>;

/** The keys a strict object at a given place accepts, for "did you mean" hints. */
export function keysAt(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return Object.keys(ConfigFile.shape);
  if (path.length === 1 && path[0] === 'permissions') return Object.keys(PermissionsConfig.shape);
  if (path.length === 1 && path[0] === 'models') return Object.keys(ModelAliases.shape);
  if (path.length === 1 && path[0] === 'sandbox')
    return ['mode', 'bwrapPath', 'allowRead', 'denyRead', 'protect'];
  if (path.length === 2 && path[0] === 'providers') return Object.keys(ProviderConfig.shape);
  if (path.length === 1 && path[0] === 'webFetch') return Object.keys(WebFetchConfig.shape);
  if (path.length === 1 && path[0] === 'webSearch') return Object.keys(WebSearchConfig.shape);
  if (path.length === 2 && path[0] === 'mcpServers') return MCP_SERVER_KEYS;
  if (path.length === 3 && path[0] === 'mcpServers' && path[2] === 'sandbox') return ['network', 'writable'];
  return [];
}
