// Merges the user and project config files into the one configuration the runtime uses:
// project scalars win, permission rule lists add up (a deny from either file binds), and
// relative paths are resolved against the directory each file belongs to.
import path from 'node:path';
import type { PermissionMode } from '../../shared/task.js';
import { AGENT_DEFAULTS } from '../../shared/agent-definition.js';
import type { McpServerConfig, McpServersConfig } from '../../shared/mcp-config.js';
import { DEFAULT_CAPS } from '../../shared/run-spec.js';
import { stricterMode } from '../agents/grant.js';
import { isUnder } from '../capabilities/policy/path-match.js';
import { limitProjectConfig } from './project-limits.js';
import type {
  ConfigFile,
  IsolationMode,
  ModelAliases,
  ProviderConfig,
  SandboxConfig,
  SandboxMode,
  WebFetchConfig,
  WebSearchConfig,
} from './schema.js';

/** The merged configuration with defaults applied. */
export interface CadreConfig {
  /** Agent entries by name (project over user); the registry validates them. */
  agents: Record<string, Record<string, unknown>>;
  permissions: {
    allow: string[];
    ask: string[];
    deny: string[];
    defaultMode: PermissionMode;
    /** Absolute directories the agents may use besides the project. */
    additionalDirectories: string[];
  };
  sandbox: SandboxSettings;
  models: ModelAliases;
  defaultModel?: string;
  providers: Record<string, ProviderConfig>;
  /** Most agent runs at once. */
  concurrency: number;
  /** Most runs waiting for a slot; absent = the runtime's own default. */
  queueLimit?: number;
  /** Global nesting cap, whatever a definition asks for. */
  maxDepth: number;
  /** Token budget per agent tree. */
  tokenBudget?: number;
  /** Default wall-clock timeout per run, seconds. */
  timeout: number;
  /** Default idle watchdog per run, seconds. */
  idleTimeout: number;
  isolation: IsolationMode;
  memoryLimitMb?: number;
  /** Absolute directory for transcripts; absent = the runtime's default. */
  transcriptsDir?: string;
  /** cadre's user data directory (absolute); absent = `~/.cadre`. */
  dataDir?: string;
  /** Most tool calls run per model message. */
  maxToolCallsPerMessage: number;
  /** Most subagents launched per model message. */
  maxTasksPerMessage: number;
  /** Most subagents launched per agent tree. */
  maxSubagents: number;
  /** Most characters of text one model reply may stream (caps.maxReplyChars). */
  maxReplyChars: number;
  /** Most characters of tool-call input one model reply may stream (caps.maxToolInputChars). */
  maxToolInputChars: number;
  webFetch: WebFetchSettings;
  webSearch: WebSearchSettings;
  /** MCP servers by name: the project's config.json over `.mcp.json` over the user's config.json. */
  mcpServers: Record<string, McpServerEntry>;
  /** Threads kept started ahead of the Task blocks a delegating run's reply has begun (0: none). */
  prestartThreads: number;
  /**
   * Whether a delegating run also keeps as many threads ahead as its agent's latest runs put
   * delegation blocks in one reply (remembered in the project's records).
   */
  prestartLearn: boolean;
  /** What the project's file tried to set and may not (project-limits.ts), one line each. */
  projectWarnings: string[];
}

/** The merged `webFetch` block: the private hosts are the user's (a project's are ignored). */
export interface WebFetchSettings {
  /** Hosts, addresses and CIDR ranges WebFetch may reach although they are private. */
  allowPrivate: string[];
  /** Most bytes of one response body. */
  maxBytes: number;
  /** Seconds one fetch may take, redirects included. */
  timeoutSeconds: number;
}

/** The merged `webSearch` block: every list adds up across the two files. */
export interface WebSearchSettings {
  allowedDomains: string[];
  blockedDomains: string[];
  maxUses?: number;
  /** Base URLs besides Anthropic's API that offer the server-side web search tool. */
  endpoints: string[];
}

/**
 * One configured MCP server and where it came from. Project servers (`.mcp.json`, the project's
 * config.json, project agent files) run only once the user trusts them (`cadre mcp trust`).
 */
export interface McpServerEntry {
  name: string;
  /** The configuration as written (`${VAR}` not yet expanded); absent when `error` is set. */
  config?: McpServerConfig;
  /** Why the entry cannot be used (a `.mcp.json` entry cadre cannot read). */
  error?: string;
  scope: 'project' | 'user';
  /** The file it came from. */
  origin: string;
}

/** `.mcp.json` as read: usable entries and, per server, why one could not be read. */
export interface McpJsonServers {
  path: string;
  servers: Record<string, { config: McpServerConfig } | { error: string }>;
}

/**
 * The merged `sandbox` block: lists add up across the two files, paths are absolute. A project's
 * file is as untrusted as a model's output (a cloned repository wrote it), so it can only tighten
 * the sandbox: its `"off"`, its `bwrapPath` and its `allowRead` outside the project are ignored,
 * and `warnings` says so.
 */
export interface SandboxSettings {
  mode: SandboxMode;
  /** The bwrap executable (absolute) named in the user's config, if any. */
  bwrapPath?: string;
  /** Absolute paths commands may also read. */
  allowRead: string[];
  /** Absolute paths hidden from commands. */
  denyRead: string[];
  /** Project-relative paths added to the protected list. */
  protect: string[];
  /** What of the project's `sandbox` block was ignored, and why: printed on every run. */
  warnings: string[];
}

/** Defaults for every field that has one. */
export const CONFIG_DEFAULTS = {
  concurrency: 16,
  maxDepth: 3,
  timeout: AGENT_DEFAULTS.timeout,
  idleTimeout: AGENT_DEFAULTS.idleTimeout,
  sandbox: 'auto',
  isolation: 'thread',
  defaultMode: 'default',
  maxToolCallsPerMessage: 64,
  maxTasksPerMessage: 16,
  maxSubagents: 200,
  maxReplyChars: DEFAULT_CAPS.maxReplyChars,
  maxToolInputChars: DEFAULT_CAPS.maxToolInputChars,
  webFetchMaxBytes: 5 * 1024 * 1024,
  webFetchTimeoutSeconds: 30,
  prestartThreads: 2,
  prestartLearn: true,
} as const;

/** Where each file's relative paths are anchored. */
export interface ConfigBases {
  /** The project directory (for the project file). */
  cwd: string;
  /** The home directory (for the user file, and `~/` anywhere). */
  home: string;
}

/** Merges the user file under the project file (and the project's `.mcp.json` between the two). */
export function mergeConfig(
  user: ConfigFile,
  written: ConfigFile,
  bases: ConfigBases,
  mcpJson?: McpJsonServers,
): CadreConfig {
  const resolveUser = (p: string) => resolvePath(p, bases.home, bases.home);
  const resolveProject = (p: string) => resolvePath(p, bases.cwd, bases.home);
  const limited = limitProjectConfig(written, resolveProject, bases.cwd);
  const project = limited.project;
  const rules = (key: 'allow' | 'ask' | 'deny') => [
    ...(project.permissions?.[key] ?? []),
    ...(user.permissions?.[key] ?? []),
  ];
  const merged: CadreConfig = {
    agents: { ...user.agents, ...project.agents },
    permissions: {
      allow: rules('allow'),
      ask: rules('ask'),
      deny: rules('deny'),
      defaultMode: mergeMode(user, project, limited.warnings),
      additionalDirectories: unique([
        ...(project.permissions?.additionalDirectories ?? []).map(resolveProject),
        ...(user.permissions?.additionalDirectories ?? []).map(resolveUser),
      ]),
    },
    sandbox: mergeSandbox(user.sandbox, project.sandbox, resolveUser, resolveProject, bases.cwd),
    models: { ...user.models, ...project.models },
    providers: mergeProviders(user, project, limited.warnings),
    concurrency: project.concurrency ?? user.concurrency ?? CONFIG_DEFAULTS.concurrency,
    maxDepth: project.maxDepth ?? user.maxDepth ?? CONFIG_DEFAULTS.maxDepth,
    timeout: project.timeout ?? user.timeout ?? CONFIG_DEFAULTS.timeout,
    idleTimeout: project.idleTimeout ?? user.idleTimeout ?? CONFIG_DEFAULTS.idleTimeout,
    isolation: project.isolation ?? user.isolation ?? CONFIG_DEFAULTS.isolation,
    maxToolCallsPerMessage:
      project.maxToolCallsPerMessage ?? user.maxToolCallsPerMessage ?? CONFIG_DEFAULTS.maxToolCallsPerMessage,
    maxTasksPerMessage:
      project.maxTasksPerMessage ?? user.maxTasksPerMessage ?? CONFIG_DEFAULTS.maxTasksPerMessage,
    maxSubagents: project.maxSubagents ?? user.maxSubagents ?? CONFIG_DEFAULTS.maxSubagents,
    maxReplyChars: project.maxReplyChars ?? user.maxReplyChars ?? CONFIG_DEFAULTS.maxReplyChars,
    maxToolInputChars:
      project.maxToolInputChars ?? user.maxToolInputChars ?? CONFIG_DEFAULTS.maxToolInputChars,
    webFetch: mergeWebFetch(user.webFetch, project.webFetch),
    webSearch: mergeWebSearch(user.webSearch, project.webSearch, limited.warnings),
    mcpServers: mergeMcpServers(user.mcpServers, project.mcpServers, bases, mcpJson),
    prestartThreads: project.prestartThreads ?? user.prestartThreads ?? CONFIG_DEFAULTS.prestartThreads,
    prestartLearn: project.prestartLearn ?? user.prestartLearn ?? CONFIG_DEFAULTS.prestartLearn,
    projectWarnings: limited.warnings,
  };
  const defaultModel = project.defaultModel ?? user.defaultModel;
  if (defaultModel !== undefined) merged.defaultModel = defaultModel;
  const queueLimit = project.queueLimit ?? user.queueLimit;
  if (queueLimit !== undefined) merged.queueLimit = queueLimit;
  const tokenBudget = project.tokenBudget ?? user.tokenBudget;
  if (tokenBudget !== undefined) merged.tokenBudget = tokenBudget;
  const memoryLimitMb = project.memoryLimitMb ?? user.memoryLimitMb;
  if (memoryLimitMb !== undefined) merged.memoryLimitMb = memoryLimitMb;
  if (project.transcriptsDir !== undefined) merged.transcriptsDir = resolveProject(project.transcriptsDir);
  else if (user.transcriptsDir !== undefined) merged.transcriptsDir = resolveUser(user.transcriptsDir);
  if (project.dataDir !== undefined) merged.dataDir = resolveProject(project.dataDir);
  else if (user.dataDir !== undefined) merged.dataDir = resolveUser(user.dataDir);
  return merged;
}

/** How strict a mode is: a project may move the mode up this scale, never down. */
const STRICTNESS: Record<SandboxMode, number> = { off: 0, auto: 1, required: 2 };

function mergeSandbox(
  user: SandboxConfig | undefined,
  project: SandboxConfig | undefined,
  resolveUser: (p: string) => string,
  resolveProject: (p: string) => string,
  projectDir: string,
): SandboxSettings {
  const warnings: string[] = [];
  const where = '.cadre/config.json of the project';
  const userMode = user?.mode ?? CONFIG_DEFAULTS.sandbox;
  let mode: SandboxMode = userMode;
  if (project?.mode !== undefined) {
    if (STRICTNESS[project.mode] >= STRICTNESS[userMode]) mode = project.mode;
    else
      warnings.push(
        `sandbox.mode "${project.mode}" in the ${where} is ignored: a project cannot loosen the sandbox (it stays "${userMode}"); to turn it off, set "sandbox": "off" in ~/.cadre/config.json`,
      );
  }
  if (project?.bwrapPath !== undefined)
    warnings.push(
      `sandbox.bwrapPath in the ${where} is ignored: the sandbox program is taken only from system directories or ~/.cadre/config.json`,
    );
  const projectAllow = (project?.allowRead ?? []).map(resolveProject);
  for (const p of projectAllow.filter((p) => !isUnder(p, projectDir)))
    warnings.push(
      `sandbox.allowRead "${p}" in the ${where} is ignored: a project can widen what commands read only in ~/.cadre/config.json`,
    );
  const settings: SandboxSettings = {
    mode,
    allowRead: unique([
      ...projectAllow.filter((p) => isUnder(p, projectDir)),
      ...(user?.allowRead ?? []).map(resolveUser),
    ]),
    denyRead: unique([
      ...(project?.denyRead ?? []).map(resolveProject),
      ...(user?.denyRead ?? []).map(resolveUser),
    ]),
    protect: unique([...(project?.protect ?? []), ...(user?.protect ?? [])]),
    warnings,
  };
  if (user?.bwrapPath !== undefined) settings.bwrapPath = user.bwrapPath;
  return settings;
}

/**
 * Providers by name: a project may add its own, but never redefine one of the person's, whose name
 * their `defaultModel` or agents already use: `corp` would lead to the repository's server, and
 * every prompt and file the run reads would go there.
 */
function mergeProviders(
  user: ConfigFile,
  project: ConfigFile,
  warnings: string[],
): Record<string, ProviderConfig> {
  const mine = user.providers ?? {};
  const out: Record<string, ProviderConfig> = { ...mine };
  for (const [name, provider] of Object.entries(project.providers ?? {})) {
    if (Object.hasOwn(mine, name))
      warnings.push(
        `providers.${name} in the .cadre/config.json of the project is ignored: a project cannot redefine your provider "${name}"; give its provider another name`,
      );
    else out[name] = provider;
  }
  return out;
}

/**
 * The permission mode: the project's only where it is at least as strict as the person's. A cloned
 * repository's `acceptEdits` would let a model write files without the prompts the person's own
 * mode asks for (its `bypassPermissions` is already taken out in project-limits.ts).
 */
function mergeMode(user: ConfigFile, project: ConfigFile, warnings: string[]): PermissionMode {
  const mine = user.permissions?.defaultMode ?? CONFIG_DEFAULTS.defaultMode;
  const theirs = project.permissions?.defaultMode;
  if (theirs === undefined) return mine;
  if (stricterMode(theirs, mine) === theirs) return theirs;
  warnings.push(
    `permissions.defaultMode "${theirs}" in the .cadre/config.json of the project is ignored: a project cannot loosen the permission mode (it stays "${mine}"); pass --permission-mode ${theirs}, or set it in ~/.cadre/config.json`,
  );
  return mine;
}

// --- WebFetch and WebSearch ---

function mergeWebFetch(
  user: WebFetchConfig | undefined,
  project: WebFetchConfig | undefined,
): WebFetchSettings {
  return {
    allowPrivate: unique([...(project?.allowPrivate ?? []), ...(user?.allowPrivate ?? [])]),
    maxBytes: project?.maxBytes ?? user?.maxBytes ?? CONFIG_DEFAULTS.webFetchMaxBytes,
    timeoutSeconds: project?.timeout ?? user?.timeout ?? CONFIG_DEFAULTS.webFetchTimeoutSeconds,
  };
}

function mergeWebSearch(
  user: WebSearchConfig | undefined,
  project: WebSearchConfig | undefined,
  warnings: string[],
): WebSearchSettings {
  const list = (key: 'allowedDomains' | 'blockedDomains' | 'endpoints') =>
    unique([...(project?.[key] ?? []), ...(user?.[key] ?? [])]);
  // An allowed list restricts the search: a project's may stand where the person has none, but
  // adding to the person's own list would widen it.
  const mine = user?.allowedDomains ?? [];
  const added = (project?.allowedDomains ?? []).filter(
    (d) => mine.length > 0 && !mine.some((m) => m.toLowerCase() === d.toLowerCase()),
  );
  for (const domain of added)
    warnings.push(
      `webSearch.allowedDomains "${domain}" in the .cadre/config.json of the project is ignored: your ~/.cadre/config.json limits searches to its own list, and a project cannot add to it`,
    );
  const settings: WebSearchSettings = {
    allowedDomains: mine.length > 0 ? unique(mine) : list('allowedDomains'),
    blockedDomains: list('blockedDomains'),
    endpoints: list('endpoints'),
  };
  const maxUses = project?.maxUses ?? user?.maxUses;
  if (maxUses !== undefined) settings.maxUses = maxUses;
  return settings;
}

// --- end WebFetch and WebSearch ---

function mergeMcpServers(
  user: McpServersConfig | undefined,
  project: McpServersConfig | undefined,
  bases: ConfigBases,
  mcpJson: McpJsonServers | undefined,
): Record<string, McpServerEntry> {
  const out: Record<string, McpServerEntry> = {};
  const userFile = path.join(bases.home, '.cadre', 'config.json');
  const projectFile = path.join(bases.cwd, '.cadre', 'config.json');
  for (const [name, config] of Object.entries(user ?? {}))
    out[name] = { name, config, scope: 'user', origin: userFile };
  for (const [name, entry] of Object.entries(mcpJson?.servers ?? {}))
    out[name] = { name, ...entry, scope: 'project', origin: mcpJson?.path ?? '.mcp.json' };
  for (const [name, config] of Object.entries(project ?? {}))
    out[name] = { name, config, scope: 'project', origin: projectFile };
  return out;
}

function resolvePath(p: string, base: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return path.resolve(base, p);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
