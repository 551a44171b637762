// From a configured server to what the hub runs: variables expanded, paths made absolute, defaults
// applied, and a key that is the same for two entries that would start the same server (so they
// share one client) and different for any change that matters (command, args, env, url, headers).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { CadreError } from '../../../shared/errors.js';
import type { McpServerConfig } from '../../../shared/mcp-config.js';
import { expandServerConfig, referencedVariables, type ExpandEnv } from './expand.js';

/** Per-call timeout when the configuration names none: explicit, never the SDK's own 60 s. */
const DEFAULT_CALL_TIMEOUT_S = 120;
/** Time to start, initialise and list tools when the configuration names none. */
const DEFAULT_STARTUP_TIMEOUT_S = 30;
/** Largest result text handed to the model when the configuration names none (characters). */
const DEFAULT_MAX_OUTPUT_CHARS = 100_000;

/** A configured server and where it came from. */
export interface McpSource {
  name: string;
  config: McpServerConfig;
  scope: 'project' | 'user';
  /** The file it was configured in. */
  origin: string;
  /** For a server defined inline in an agent's front matter: that agent. */
  agent?: string;
}

/** A stdio server, ready to spawn. */
export interface StdioTarget {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** `false`: runs unsandboxed (configured so). Otherwise the sandbox's network and extra writable directories. */
  sandbox: false | { network: boolean; writable: string[] };
}

/** A remote server. */
export interface RemoteTarget {
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

/** A server as the hub runs it. */
export interface ServerSpec {
  /** Same for two entries that start the same server. */
  key: string;
  name: string;
  scope: McpSource['scope'];
  origin: string;
  agent?: string;
  target: StdioTarget | RemoteTarget;
  timeoutMs: number;
  startupTimeoutMs: number;
  maxOutputChars: number;
}

/** Directories relative paths are resolved against: the project's for project servers, home for the user's. */
export interface SpecBases {
  cwd: string;
  home: string;
}

function absolute(p: string, source: McpSource, bases: SpecBases): string {
  if (p === '~') return bases.home;
  if (p.startsWith('~/')) return path.join(bases.home, p.slice(2));
  return path.resolve(source.scope === 'project' ? bases.cwd : bases.home, p);
}

function checkUrl(url: string, source: McpSource): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CadreError(
      'invalid_input',
      `MCP server "${source.name}" (${source.origin}): url: "${url.slice(0, 200)}" is not a URL`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CadreError(
      'invalid_input',
      `MCP server "${source.name}" (${source.origin}): url: only http and https are supported, not ${parsed.protocol}`,
    );
  return parsed.href;
}

/**
 * Resolves `source` against `env` and `bases`. Throws `invalid_input` naming the server and the
 * field for a missing variable or a bad URL.
 */
export function resolveServer(source: McpSource, env: ExpandEnv, bases: SpecBases): ServerSpec {
  const config = expandServerConfig(source.config, env, source);
  let target: StdioTarget | RemoteTarget;
  if (config.type === 'stdio') {
    const sandbox = config.sandbox;
    target = {
      type: 'stdio',
      command: config.command,
      args: config.args ?? [],
      env: config.env ?? {},
      cwd: config.cwd === undefined ? bases.cwd : absolute(config.cwd, source, bases),
      sandbox:
        sandbox === false
          ? false
          : {
              network: typeof sandbox === 'object' ? (sandbox.network ?? true) : true,
              writable:
                typeof sandbox === 'object'
                  ? (sandbox.writable ?? []).map((p) => absolute(p, source, bases))
                  : [],
            },
    };
  } else {
    target = { type: config.type, url: checkUrl(config.url, source), headers: config.headers ?? {} };
  }
  const spec: ServerSpec = {
    key: createHash('sha256').update(JSON.stringify(target)).digest('hex').slice(0, 16),
    name: source.name,
    scope: source.scope,
    origin: source.origin,
    target,
    timeoutMs: (config.timeout ?? DEFAULT_CALL_TIMEOUT_S) * 1000,
    startupTimeoutMs: (config.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_S) * 1000,
    maxOutputChars: config.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
  };
  if (source.agent !== undefined) spec.agent = source.agent;
  return spec;
}

/** One line saying what a target runs, for listings and messages; header values are never shown. */
export function describeTarget(target: StdioTarget | RemoteTarget): string {
  if (target.type === 'stdio') {
    const line = [target.command, ...target.args].map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a) : a));
    return line.join(' ').slice(0, 300);
  }
  const headers = Object.keys(target.headers);
  return `${target.type} ${target.url}${headers.length > 0 ? ` (headers: ${headers.join(', ')})` : ''}`;
}

/**
 * `describeTarget` for a configuration as written (variables unexpanded), with what a person
 * deciding on trust needs besides the command: the environment it sets and any loosened sandbox.
 */
export function describeConfig(config: McpServerConfig): string {
  // Values are not shown (a person's own file may hold a literal token), but the variables they
  // name are, wherever they are expanded: a project's `TOKEN: ${ANTHROPIC_API_KEY}`, or a URL or
  // an argument carrying `${AWS_SECRET_ACCESS_KEY}`, would hand the server a secret of the person's.
  const passes = (values: readonly string[]) => {
    const names = referencedVariables(values);
    return names.length > 0 ? `passes your ${names.map((n) => `$${n}`).join(', ')}` : undefined;
  };
  if (config.type !== 'stdio') {
    const target = describeTarget({ type: config.type, url: config.url, headers: config.headers ?? {} });
    const sends = passes([config.url, ...Object.values(config.headers ?? {})]);
    return sends === undefined ? target : `${target} [${sends}]`;
  }
  const line = describeTarget({
    type: 'stdio',
    command: config.command,
    args: config.args ?? [],
    env: {},
    cwd: '',
    sandbox: false,
  });
  const notes: string[] = [];
  const env = Object.keys(config.env ?? {});
  if (env.length > 0) notes.push(`env: ${env.join(', ')}`);
  const envVars = passes([
    ...Object.values(config.env ?? {}),
    config.command,
    ...(config.args ?? []),
    ...(config.cwd === undefined ? [] : [config.cwd]),
  ]);
  if (envVars !== undefined) notes.push(envVars);
  if (config.cwd !== undefined) notes.push(`cwd: ${config.cwd}`);
  const sandbox = config.sandbox;
  if (sandbox === false) notes.push('UNSANDBOXED');
  if (typeof sandbox === 'object' && sandbox.network === false) notes.push('no network');
  if (typeof sandbox === 'object' && (sandbox.writable ?? []).length > 0)
    notes.push(`may write: ${(sandbox.writable ?? []).join(', ')}`);
  return notes.length > 0 ? `${line} [${notes.join('; ')}]` : line;
}
