// The `.cadre/config.json` schema: what a project or user config file may contain, field by field.
// Strict at every level so a mistyped key is reported instead of silently doing nothing.
import * as z from 'zod';
import { PermissionMode } from '../../shared/task.js';

const nonEmpty = z.string().min(1, 'must not be empty');
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** Permission rules such as `Bash(git status:*)`, `Read(src/**)`, `mcp__github__*`. */
export const PermissionRules = z.array(nonEmpty);
/** A list of permission rules. */
export type PermissionRules = z.infer<typeof PermissionRules>;

/** The `permissions` block. Rule lists from the user and project files are concatenated. */
export const PermissionsConfig = z.strictObject({
  allow: PermissionRules.optional(),
  ask: PermissionRules.optional(),
  deny: PermissionRules.optional(),
  defaultMode: PermissionMode.optional(),
  additionalDirectories: z.array(nonEmpty).optional(),
});
/** The `permissions` block. */
export type PermissionsConfig = z.infer<typeof PermissionsConfig>;

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

const seconds = z.number().positive().max(86_400);
const count = z.number().int().positive();

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
  concurrency: count.max(1024).optional(),
  queueLimit: z.number().int().min(0).optional(),
  maxDepth: z.number().int().min(0).max(16).optional(),
  tokenBudget: count.optional(),
  timeout: seconds.optional(),
  idleTimeout: seconds.optional(),
  isolation: IsolationMode.optional(),
  memoryLimitMb: count.max(1_048_576).optional(),
  transcriptsDir: nonEmpty.optional(),
  /** cadre's user data directory; each project's records go under `<dataDir>/projects/<slug>/`. */
  dataDir: nonEmpty.optional(),
  /** Tool calls one model message may make; the rest are answered "limit reached, do not retry". */
  maxToolCallsPerMessage: count.max(1000).optional(),
  /** Subagents (Task and agent tools) one model message may launch. */
  maxTasksPerMessage: count.max(1000).optional(),
  /** Subagents one agent tree may launch in all (every message, every depth, background runs). */
  maxSubagents: count.max(100_000).optional(),
  /** Threads started ahead while a run that may start subagents waits for its model (0: none). */
  prestartThreads: z.number().int().min(0).max(1024).optional(),
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
  return [];
}
