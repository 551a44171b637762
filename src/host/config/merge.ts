// Merges the user and project config files into the one configuration the runtime uses:
// project scalars win, permission rule lists add up (a deny from either file binds), and
// relative paths are resolved against the directory each file belongs to.
import path from 'node:path';
import type { PermissionMode } from '../../shared/task.js';
import { AGENT_DEFAULTS } from '../../shared/agent-definition.js';
import type {
  ConfigFile,
  IsolationMode,
  ModelAliases,
  ProviderConfig,
  SandboxConfig,
  SandboxMode,
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
} as const;

/** Where each file's relative paths are anchored. */
export interface ConfigBases {
  /** The project directory (for the project file). */
  cwd: string;
  /** The home directory (for the user file, and `~/` anywhere). */
  home: string;
}

/** A configuration with nothing set: all defaults. */
export function defaultConfig(): CadreConfig {
  return mergeConfig({}, {}, { cwd: process.cwd(), home: process.cwd() });
}

/** Merges the user file under the project file. */
export function mergeConfig(user: ConfigFile, project: ConfigFile, bases: ConfigBases): CadreConfig {
  const resolveUser = (p: string) => resolvePath(p, bases.home, bases.home);
  const resolveProject = (p: string) => resolvePath(p, bases.cwd, bases.home);
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
      defaultMode:
        project.permissions?.defaultMode ?? user.permissions?.defaultMode ?? CONFIG_DEFAULTS.defaultMode,
      additionalDirectories: unique([
        ...(project.permissions?.additionalDirectories ?? []).map(resolveProject),
        ...(user.permissions?.additionalDirectories ?? []).map(resolveUser),
      ]),
    },
    sandbox: mergeSandbox(user.sandbox, project.sandbox, resolveUser, resolveProject, bases.cwd),
    models: { ...user.models, ...project.models },
    providers: { ...user.providers, ...project.providers },
    concurrency: project.concurrency ?? user.concurrency ?? CONFIG_DEFAULTS.concurrency,
    maxDepth: project.maxDepth ?? user.maxDepth ?? CONFIG_DEFAULTS.maxDepth,
    timeout: project.timeout ?? user.timeout ?? CONFIG_DEFAULTS.timeout,
    idleTimeout: project.idleTimeout ?? user.idleTimeout ?? CONFIG_DEFAULTS.idleTimeout,
    isolation: project.isolation ?? user.isolation ?? CONFIG_DEFAULTS.isolation,
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
  for (const p of projectAllow.filter((p) => !isInside(p, projectDir)))
    warnings.push(
      `sandbox.allowRead "${p}" in the ${where} is ignored: a project can widen what commands read only in ~/.cadre/config.json`,
    );
  const settings: SandboxSettings = {
    mode,
    allowRead: unique([
      ...projectAllow.filter((p) => isInside(p, projectDir)),
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

function isInside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !path.isAbsolute(rel));
}

function resolvePath(p: string, base: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return path.resolve(base, p);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
