// Loads every agent source with DESIGN.md's precedence and returns { agents, errors, warnings }.
// Each source is read in parallel; one bad file never hides the good ones, and every loaded agent
// remembers where it came from and which lower definitions of its name it hides.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AgentSource,
  type AgentDefinition,
  type LoadedAgent,
  type RegistryIssue,
  type RegistryResult,
} from '../../shared/agent-definition.js';
import { agentServers } from '../capabilities/mcp/agent-servers.js';
import { configPath, type LoadedConfig, loadConfig } from '../config.js';
import { readCliAgents } from './cli-agents.js';
import { parseAgentEntry, parseAgentFile, type ParsedAgent, type ParseOptions } from './parse-agent.js';
import { type AgentFileRead, readAgentFiles } from './read-agent-files.js';

/** The built-in agents shipped with the package (`<package>/agents/`, from `src/` or `dist/` alike). */
export const BUILTIN_AGENTS_DIR = fileURLToPath(new URL('../../../agents/', import.meta.url));

/** Where to look. */
export interface LoadRegistryOptions {
  /** The project directory. */
  cwd: string;
  /** The home directory holding the user level (`~/.cadre`, `~/.claude`). */
  home: string;
  /** The `--agents` flag: inline JSON or a JSON file path. */
  cliAgents?: string | undefined;
  /** Override the built-in agents directory (tests). */
  builtinDir?: string;
  /** An already loaded config; without it the registry loads it and reports its errors too. */
  config?: LoadedConfig;
}

/** The sources in precedence order, highest first. */
export const SOURCE_ORDER: readonly AgentSource[] = AgentSource.options;

interface Candidate {
  source: AgentSource;
  path: string;
  parsed: ParsedAgent;
}

/** Loads all sources and resolves precedence. Never throws for bad input. */
export async function loadRegistry(options: LoadRegistryOptions): Promise<RegistryResult> {
  const config = options.config ?? (await loadConfig({ cwd: options.cwd, home: options.home }));
  const errors: RegistryIssue[] = options.config ? [] : [...config.errors];
  const warnings: RegistryIssue[] = [];
  const parseOptions: ParseOptions = {
    defaults: { timeout: config.merged.timeout, idleTimeout: config.merged.idleTimeout },
  };
  // From the home directory the project and user levels are the same files: load them once.
  const sameLevel = path.resolve(options.cwd) === path.resolve(options.home);

  const fileSources: [AgentSource, string][] = [
    ['project', path.join(options.cwd, '.cadre', 'agents')],
    ['project-claude', path.join(options.cwd, '.claude', 'agents')],
    ...(sameLevel
      ? []
      : ([
          ['user', path.join(options.home, '.cadre', 'agents')],
          ['user-claude', path.join(options.home, '.claude', 'agents')],
        ] as [AgentSource, string][])),
    ['builtin', options.builtinDir ?? BUILTIN_AGENTS_DIR],
  ];
  const [cli, ...dirs] = await Promise.all([
    options.cliAgents === undefined ? undefined : readCliAgents(options.cliAgents, options.cwd),
    ...fileSources.map(async ([source, where]) => ({
      source,
      where,
      read: await readAgentFiles(where, (f) => candidate(source, f, parseOptions)),
    })),
  ]);

  const bySource = new Map<AgentSource, Candidate[]>();
  const entries = (
    source: AgentSource,
    where: string,
    record: Record<string, unknown> | undefined,
    fieldPrefix: (name: string) => string,
  ) =>
    bySource.set(
      source,
      Object.entries(record ?? {}).map(([name, entry]) => ({
        source,
        path: where,
        parsed: parseAgentEntry(name, entry, where, { ...parseOptions, fieldPrefix: fieldPrefix(name) }),
      })),
    );
  entries('project-config', configPath(options.cwd), config.project.agents, (n) => `agents.${n}`);
  entries('user-config', configPath(options.home), config.user.agents, (n) => `agents.${n}`);
  if (cli) {
    errors.push(...cli.errors);
    entries('cli', cli.where, cli.entries, (n) => n);
  }
  for (const { source, where, read } of dirs) {
    errors.push(...read.errors);
    if (source === 'builtin' && read.items.length === 0 && read.errors.length === 0) {
      errors.push({
        path: where,
        message: 'no built-in agents found: the package looks incomplete (reinstall cadre)',
      });
    }
    bySource.set(source, dropDuplicates(read.items, errors));
  }

  const winners = new Map<string, LoadedAgent>();
  const failed = new Map<string, Candidate>();
  for (const source of SOURCE_ORDER) {
    for (const candidate of bySource.get(source) ?? []) {
      errors.push(...candidate.parsed.errors);
      warnings.push(...candidate.parsed.warnings);
      const agent = candidate.parsed.agent;
      const name = agent?.name ?? candidate.parsed.name;
      if (name === undefined) continue;
      const winner = winners.get(name);
      // Only a valid definition is hidden; a broken one is reported above and hides nothing.
      if (winner && agent) winner.overrides.push({ source, path: candidate.path });
      else if (agent) winners.set(name, loaded(agent, candidate));
      else if (!failed.has(name)) failed.set(name, candidate);
    }
  }
  for (const [name, broken] of failed) {
    const used = winners.get(name);
    if (used && SOURCE_ORDER.indexOf(used.source) > SOURCE_ORDER.indexOf(broken.source)) {
      warnings.push({
        path: broken.path,
        message: `"${name}" failed to load here, so the lower-precedence ${used.source} definition (${used.path}) is in effect`,
      });
    }
  }

  const agents = [...winners.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const agent of agents) {
    for (const type of agent.taskTypes ?? []) {
      if (!winners.has(type))
        warnings.push({
          path: agent.path,
          field: 'tools',
          message: `Task(${type}): no agent named "${type}" is defined`,
        });
    }
    warnings.push(...mcpNameWarnings(agent, config.merged.mcpServers));
  }
  return { agents, errors, warnings };
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

function candidate(source: AgentSource, read: AgentFileRead, options: ParseOptions): Candidate {
  if ('error' in read) return { source, path: read.path, parsed: { errors: [read.error], warnings: [] } };
  return { source, path: read.path, parsed: parseAgentFile(read.path, read.content, options) };
}

function loaded(agent: AgentDefinition, candidate: Candidate): LoadedAgent {
  return { ...agent, source: candidate.source, path: candidate.path, overrides: [] };
}

// Two files of one scope with one name: the first by file name wins, the other is an error naming both.
function dropDuplicates(candidates: Candidate[], errors: RegistryIssue[]): Candidate[] {
  const seen = new Map<string, string>();
  return candidates.filter((c) => {
    const name = c.parsed.agent?.name;
    if (name === undefined) return true;
    const first = seen.get(name);
    if (first === undefined) {
      seen.set(name, c.path);
      return true;
    }
    errors.push({
      path: c.path,
      field: 'name',
      message: `duplicate agent name "${name}": ${first} defines it too; that file is used and this one is ignored`,
    });
    return false;
  });
}
