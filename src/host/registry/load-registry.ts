// Loads every agent source with DESIGN.md's precedence and returns { agents, errors, warnings }.
// Each source is read in parallel; one bad file never hides the good ones, and every loaded agent
// remembers where it came from and which lower definitions of its name it hides.
import type {
  AgentSource,
  LoadedAgent,
  RegistryIssue,
  RegistryResult,
} from '../../shared/agent-definition.js';
import { AgentNames } from '../../shared/agent-name.js';
import type { ModelEnv } from '../agents/model-resolve.js';
import { agentServers } from '../capabilities/mcp/agent-servers.js';
import { configPath, type LoadedConfig, loadConfig } from '../config.js';
import { entryCandidates, readAgentDirs } from './agent-sources.js';
import { readCliAgents } from './cli-agents.js';
import { markNotInEffect } from './mark-not-in-effect.js';
import type { ParseOptions } from './parse-agent.js';
import { type Candidate, dropDuplicates, resolvePrecedence } from './precedence.js';

/** Where to look. */
export interface LoadRegistryOptions {
  /** The project directory. */
  cwd: string;
  /** The home directory holding the user level (`~/.cadre`, `~/.claude`). */
  home: string;
  /** The `--agents` flag (inline JSON or a JSON file path), or agents defined in code. */
  cliAgents?: string | Record<string, unknown> | undefined;
  /** Override the built-in agents directory (tests). */
  builtinDir?: string;
  /** An already loaded config; without it the registry loads it and reports its errors too. */
  config?: LoadedConfig;
  /** The environment runs will see (it decides which model endpoint a definition reaches). */
  env?: ModelEnv;
  /** The registry cache directory (registryCacheDir); without it every file is parsed. */
  cacheDir?: string;
  /** Parse every file afresh, neither reading nor writing the cache (`agents validate`). */
  fresh?: boolean;
}

/** Loads all sources and resolves precedence. Never throws for bad input. */
export async function loadRegistry(options: LoadRegistryOptions): Promise<RegistryResult> {
  const config = options.config ?? (await loadConfig({ cwd: options.cwd, home: options.home }));
  const errors: RegistryIssue[] = options.config ? [] : [...config.errors];
  const parseOptions: ParseOptions = {
    defaults: { timeout: config.merged.timeout, idleTimeout: config.merged.idleTimeout },
  };
  const [cli, dirs] = await Promise.all([
    options.cliAgents === undefined ? undefined : readCliAgents(options.cliAgents, options.cwd),
    readAgentDirs(options, parseOptions),
  ]);

  const agentsKey = (name: string) => `agents.${name}`;
  const bySource = new Map<AgentSource, Candidate[]>([
    [
      'project-config',
      entryCandidates(
        'project-config',
        configPath(options.cwd),
        config.project.agents,
        parseOptions,
        agentsKey,
      ),
    ],
    [
      'user-config',
      entryCandidates('user-config', configPath(options.home), config.user.agents, parseOptions, agentsKey),
    ],
  ]);
  if (cli) {
    errors.push(...cli.errors);
    bySource.set(
      'cli',
      entryCandidates('cli', cli.where, cli.entries, parseOptions, (n) => n),
    );
  }
  for (const { source, where, items, errors: unread } of dirs) {
    errors.push(...unread);
    if (source === 'builtin' && items.length === 0 && unread.length === 0) {
      errors.push({
        path: where,
        message: 'no built-in agents found: the package looks incomplete (reinstall cadre)',
      });
    }
    bySource.set(source, dropDuplicates(items, errors));
  }

  const resolved = resolvePrecedence(bySource);
  errors.push(...resolved.errors);
  const { agents } = resolved;
  const warnings = [...resolved.warnings, ...nameWarnings(agents, config.merged.mcpServers)];
  warnings.push(...markNotInEffect(agents, config.merged, options.env ?? {}));
  return { agents, errors, warnings };
}

/** What each agent names that is not there: Task types no agent defines, MCP servers not configured. */
export function nameWarnings(
  agents: readonly LoadedAgent[],
  configured: LoadedConfig['merged']['mcpServers'],
): RegistryIssue[] {
  const names = new AgentNames(agents.map((a) => a.name));
  const warnings: RegistryIssue[] = [];
  for (const agent of agents) {
    for (const type of agent.taskTypes ?? []) {
      const { found, hint } = names.lookup(type);
      if (found === undefined)
        warnings.push({
          path: agent.path,
          field: 'tools',
          message: `Task(${type}): no agent named "${type}" is defined${hint ? ` (did you mean "${hint}"?)` : ''}`,
        });
    }
    warnings.push(...mcpNameWarnings(agent, configured));
  }
  return warnings;
}

/** MCP servers an agent names (in `tools` or `mcpServers`) that no configuration defines. */
function mcpNameWarnings(
  agent: LoadedAgent,
  configured: LoadedConfig['merged']['mcpServers'],
): RegistryIssue[] {
  return agentServers(agent, configured).missing.map((name) => ({
    path: agent.path,
    field: agent.mcpServers?.some((r) => r.name === name) ? 'mcpServers' : 'tools',
    message: `no MCP server "${name}" is configured (add it to .mcp.json or to mcpServers in .cadre/config.json or ~/.cadre/config.json); its tools are not available to this agent`,
  }));
}
