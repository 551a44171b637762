// Where agent definitions come from and how each source is read into candidates: the agent
// directories (project, user, built-in; through the registry cache when there is one) and the
// `agents` entries of config files and `--agents`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentSource, RegistryIssue } from '../../shared/agent-definition.js';
import type { Candidate } from './precedence.js';
import { parseAgentEntry, parseAgentFile, type ParsedAgent, type ParseOptions } from './parse-agent.js';
import { type AgentFileRead, readAgentFiles } from './read-agent-files.js';
import { buildStamp, type CacheSettings, readSourceCached } from './registry-cache.js';

/** The built-in agents shipped with the package (`<package>/agents/`, from `src/` or `dist/` alike). */
export const BUILTIN_AGENTS_DIR = fileURLToPath(new URL('../../../agents/', import.meta.url));

/** Where the agent directories are and how to read them. */
export interface DirOptions {
  cwd: string;
  home: string;
  builtinDir?: string | undefined;
  cacheDir?: string | undefined;
  fresh?: boolean | undefined;
}

/** One directory source read: its candidates and the files that could not be read. */
export interface DirRead {
  source: AgentSource;
  where: string;
  items: Candidate[];
  errors: RegistryIssue[];
}

/** The agent directories, highest precedence first. */
export function agentDirs(options: Pick<DirOptions, 'cwd' | 'home' | 'builtinDir'>): [AgentSource, string][] {
  // From the home directory the project and user levels are the same files: load them once.
  const sameLevel = path.resolve(options.cwd) === path.resolve(options.home);
  const user: [AgentSource, string][] = sameLevel
    ? []
    : [
        ['user', path.join(options.home, '.cadre', 'agents')],
        ['user-claude', path.join(options.home, '.claude', 'agents')],
      ];
  return [
    ['project', path.join(options.cwd, '.cadre', 'agents')],
    ['project-claude', path.join(options.cwd, '.claude', 'agents')],
    ...user,
    ['builtin', options.builtinDir ?? BUILTIN_AGENTS_DIR],
  ];
}

/** Reads every agent directory in parallel, through the cache unless `fresh` or without a cacheDir. */
export async function readAgentDirs(options: DirOptions, parseOptions: ParseOptions): Promise<DirRead[]> {
  const parse = (read: AgentFileRead): ParsedAgent =>
    'error' in read
      ? { errors: [read.error], warnings: [] }
      : parseAgentFile(read.path, read.content, parseOptions);
  const cache: CacheSettings | undefined =
    options.cacheDir !== undefined && options.fresh !== true
      ? { dir: options.cacheDir, stamp: await buildStamp(JSON.stringify(parseOptions.defaults)) }
      : undefined;
  const readDir = async (source: AgentSource, where: string): Promise<DirRead> => {
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
    return { source, where, items, errors: read.errors };
  };
  return Promise.all(agentDirs(options).map(([source, where]) => readDir(source, where)));
}

/** The candidates of an `agents` record (a config file's, or `--agents`), each field named with `fieldPrefix`. */
export function entryCandidates(
  source: AgentSource,
  where: string,
  record: Record<string, unknown> | undefined,
  parseOptions: ParseOptions,
  fieldPrefix: (name: string) => string,
): Candidate[] {
  return Object.entries(record ?? {}).map(([name, entry]) => ({
    source,
    path: where,
    parsed: parseAgentEntry(name, entry, where, { ...parseOptions, fieldPrefix: fieldPrefix(name) }),
  }));
}
