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
import { agentKey, AgentNames } from '../../shared/agent-name.js';
import type { ModelEnv } from '../agents/model-resolve.js';
import { agentServers } from '../capabilities/mcp/agent-servers.js';
import { configPath, type LoadedConfig, loadConfig } from '../config.js';
import { readCliAgents } from './cli-agents.js';
import { markNotInEffect } from './mark-not-in-effect.js';
import { buildStamp, type CacheSettings, readSourceCached } from './registry-cache.js';
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

/** The sources in precedence order, highest first. */
export const SOURCE_ORDER: readonly AgentSource[] = AgentSource.options;

interface Candidate {
  source: AgentSource;
  path: string;
  relativePath?: string;
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
  const parse = (read: AgentFileRead): ParsedAgent =>
    'error' in read
      ? { errors: [read.error], warnings: [] }
      : parseAgentFile(read.path, read.content, parseOptions);
  const cache: CacheSettings | undefined =
    options.cacheDir !== undefined && options.fresh !== true
      ? { dir: options.cacheDir, stamp: await buildStamp(JSON.stringify(parseOptions.defaults)) }
      : undefined;
  const readSource = async (source: AgentSource, where: string) => {
    const read = cache
      ? await readSourceCached(where, parse, cache)
      : await readAgentFiles(where, (f) => ({
          path: f.path,
          relativePath: f.relativePath,
          parsed: parse(f),
        }));
    const items: Candidate[] = read.items.map((item) => ({
      source,
      path: item.path,
      ...(item.relativePath === undefined ? {} : { relativePath: item.relativePath }),
      parsed: item.parsed,
    }));
    return { source, where, read: { items, errors: read.errors } };
  };
  const [cli, ...dirs] = await Promise.all([
    options.cliAgents === undefined ? undefined : readCliAgents(options.cliAgents, options.cwd),
    ...fileSources.map(([source, where]) => readSource(source, where)),
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

  // Keyed by agentKey: names that differ only in case are one agent.
  const winners = new Map<string, LoadedAgent>();
  const failed = new Map<string, { name: string; candidate: Candidate }>();
  for (const source of SOURCE_ORDER) {
    for (const candidate of bySource.get(source) ?? []) {
      errors.push(...candidate.parsed.errors);
      warnings.push(...candidate.parsed.warnings);
      const agent = candidate.parsed.agent;
      const name = agent?.name ?? candidate.parsed.name;
      if (name === undefined) continue;
      const key = agentKey(name);
      const winner = winners.get(key);
      // Only a valid definition is hidden; a broken one is reported above and hides nothing.
      if (winner && agent) winner.overrides.push({ source, path: candidate.path });
      else if (agent) winners.set(key, loaded(agent, candidate));
      else if (!failed.has(key)) failed.set(key, { name, candidate });
    }
  }
  for (const [key, { name, candidate: broken }] of failed) {
    const used = winners.get(key);
    if (used && SOURCE_ORDER.indexOf(used.source) > SOURCE_ORDER.indexOf(broken.source)) {
      warnings.push({
        path: broken.path,
        message: `"${name}" failed to load here, so the lower-precedence ${used.source} definition (${used.path}) is in effect`,
      });
    }
  }

  const agents = [...winners.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, agent]) => agent);
  const names = new AgentNames(agents.map((a) => a.name));
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
    warnings.push(...mcpNameWarnings(agent, config.merged.mcpServers));
  }
  warnings.push(...markNotInEffect(agents, config.merged, options.env ?? {}));
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

// The definition plus its provenance. A parse's definition is used once, so it is extended in
// place: copying would read a cached definition's prompt, which is decoded only when read.
function loaded(agent: AgentDefinition, candidate: Candidate): LoadedAgent {
  const out = agent as LoadedAgent;
  out.source = candidate.source;
  out.path = candidate.path;
  out.overrides = [];
  if (candidate.relativePath !== undefined) out.relativePath = candidate.relativePath;
  return out;
}

// Two files of one source with one name (in any of its subfolders, in any case): the first by
// relative path wins, the other is an error naming both.
function dropDuplicates(candidates: Candidate[], errors: RegistryIssue[]): Candidate[] {
  const seen = new Map<string, string>();
  return candidates.filter((c) => {
    const name = c.parsed.agent?.name;
    if (name === undefined) return true;
    const first = seen.get(agentKey(name));
    if (first === undefined) {
      seen.set(agentKey(name), c.path);
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
