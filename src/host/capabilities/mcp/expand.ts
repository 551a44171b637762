// `${VAR}` and `${VAR:-default}` in an MCP server's configuration, as Claude Code expands them:
// in the command, args, env, cwd, url and headers. A variable that is not set and has no default
// is an error that names the server, the file and the field, never an empty string that would
// start a server with a missing token.
import { CadreError } from '../../../shared/errors.js';
import type { McpServerConfig } from '../../../shared/mcp-config.js';

/** The environment variables are read from. */
export type ExpandEnv = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The variables `values` refer to (`${VAR}`, `${VAR:-default}`), each once, in order. */
export function referencedVariables(values: readonly string[]): string[] {
  const names = new Set<string>();
  for (const value of values) for (const match of value.matchAll(REFERENCE)) names.add(match[1] as string);
  return [...names];
}

/** Where a server was configured, for messages. */
export interface ServerOrigin {
  name: string;
  origin: string;
}

/**
 * Expands one value. `${VAR:-default}` takes the default when VAR is unset or empty (as a shell
 * does); `${VAR}` with VAR unset throws `invalid_input` naming `field`.
 */
export function expandValue(value: string, env: ExpandEnv, server: ServerOrigin, field: string): string {
  return value.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (fallback !== undefined) return set === undefined || set === '' ? fallback : set;
    if (set !== undefined) return set;
    throw new CadreError(
      'invalid_input',
      `MCP server "${server.name}" (${server.origin}): ${field}: \${${name}} is not set and has no default; ` +
        `set ${name} in the environment, or write \${${name}:-default} in the configuration`,
      { server: server.name, field, variable: name },
    );
  });
}

function expandMap(
  map: Readonly<Record<string, string>> | undefined,
  env: ExpandEnv,
  server: ServerOrigin,
  field: string,
): Record<string, string> | undefined {
  if (map === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map))
    out[key] = expandValue(value, env, server, `${field}.${key}`);
  return out;
}

/** The configuration with every reference expanded; throws on the first missing variable. */
export function expandServerConfig(
  config: McpServerConfig,
  env: ExpandEnv,
  server: ServerOrigin,
): McpServerConfig {
  if (config.type === 'stdio') {
    const out: McpServerConfig = {
      ...config,
      command: expandValue(config.command, env, server, 'command'),
    };
    if (config.args) out.args = config.args.map((a, i) => expandValue(a, env, server, `args.${i}`));
    const vars = expandMap(config.env, env, server, 'env');
    if (vars) out.env = vars;
    if (config.cwd !== undefined) out.cwd = expandValue(config.cwd, env, server, 'cwd');
    return out;
  }
  const out: McpServerConfig = { ...config, url: expandValue(config.url, env, server, 'url') };
  const headers = expandMap(config.headers, env, server, 'headers');
  if (headers) out.headers = headers;
  return out;
}
