// Loads `.cadre/config.json` from the project and the user's home, validates each file against the
// strict schema (unknown keys get a "did you mean"), and merges them. A file with errors still
// contributes its valid fields, so a typo in one key never drops the deny rules beside it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type * as z from 'zod';
import type { RegistryIssue } from '../shared/agent-definition.js';
import { closest } from '../shared/closest.js';
import { parseJsonText } from './config/json-text.js';
import { type CadreConfig, mergeConfig } from './config/merge.js';
import { mcpJsonPath, readMcpJson } from './config/mcp-json.js';
import { ConfigFile, keysAt } from './config/schema.js';
import { issueMessage } from './config/zod-messages.js';
import { sortByLine } from './registry/format-issue.js';

export { type CadreConfig, CONFIG_DEFAULTS } from './config/merge.js';
export { ConfigFile } from './config/schema.js';

/** A problem in a config file: the file, the line when known, the field. */
export type ConfigIssue = RegistryIssue;

/** The outcome of reading one config file. */
export interface ConfigFileResult {
  /** The valid part of the file (empty when the file is missing or unreadable). */
  config: ConfigFile;
  errors: ConfigIssue[];
  /** True when the file exists. */
  found: boolean;
}

/** Both files, the merged result and every problem found. */
export interface LoadedConfig {
  project: ConfigFile;
  user: ConfigFile;
  merged: CadreConfig;
  errors: ConfigIssue[];
  /** The files read (or looked for). */
  paths: { project: string; user: string; mcpJson: string };
}

/** The config file of a directory: `<dir>/.cadre/config.json`. */
export function configPath(dir: string): string {
  return path.join(dir, '.cadre', 'config.json');
}

/**
 * Reads and merges `<cwd>/.cadre/config.json` over `<home>/.cadre/config.json`, with the project's
 * `.mcp.json` servers between the two.
 */
export async function loadConfig(options: { cwd: string; home: string }): Promise<LoadedConfig> {
  const paths = {
    project: configPath(options.cwd),
    user: configPath(options.home),
    mcpJson: mcpJsonPath(options.cwd),
  };
  // Running from the home directory makes both paths one file: read it once, as the project file.
  const same = path.resolve(paths.project) === path.resolve(paths.user);
  const [user, project, mcpJson] = await Promise.all([
    same
      ? Promise.resolve<ConfigFileResult>({ config: {}, errors: [], found: false })
      : readConfigFile(paths.user),
    readConfigFile(paths.project),
    readMcpJson(paths.mcpJson),
  ]);
  return {
    project: project.config,
    user: user.config,
    // Run from the home directory, the one file is the user's own: it merges as the user file, so
    // what only the user's config may do (turn the sandbox off, name bwrap) still works there.
    merged: same
      ? mergeConfig(project.config, {}, options, mcpJson.value)
      : mergeConfig(user.config, project.config, options, mcpJson.value),
    errors: [...project.errors, ...mcpJson.errors, ...user.errors],
    paths,
  };
}

/** Reads one config file; a missing file is an empty config, never an error. */
export async function readConfigFile(file: string): Promise<ConfigFileResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { config: {}, errors: [], found: false };
    return {
      config: {},
      errors: [{ path: file, message: `cannot read: ${(error as Error).message}` }],
      found: true,
    };
  }
  return { ...parseConfigText(file, text), found: true };
}

/** Parses config text (pure): invalid JSON names line and column; schema problems name the field. */
export function parseConfigText(file: string, text: string): { config: ConfigFile; errors: ConfigIssue[] } {
  if (text.trim() === '') return { config: {}, errors: [] };
  const json = parseJsonText(text);
  if (!json.ok)
    return {
      config: {},
      errors: [
        {
          path: file,
          line: json.line,
          message: `${json.message} at line ${json.line}, column ${json.column}`,
        },
      ],
    };
  if (typeof json.value !== 'object' || json.value === null || Array.isArray(json.value)) {
    return {
      config: {},
      errors: [{ path: file, message: 'must be a JSON object such as { "permissions": { ... } }' }],
    };
  }
  const errors: ConfigIssue[] = [];
  let raw = structuredClone(json.value) as Record<string, unknown>;
  // Each round drops what zod rejected and re-checks; a handful of rounds always converges.
  for (let round = 0; round < 8; round++) {
    const parsed = ConfigFile.safeParse(raw);
    if (parsed.success) return { config: parsed.data, errors: sortByLine(errors) };
    // Describe against the untouched value first: pruning can remove what a later issue quotes.
    if (round === 0)
      for (const issue of parsed.error.issues) errors.push(...describeIssue(file, text, issue, raw));
    for (const issue of parsed.error.issues) for (const bad of offendingPaths(issue)) raw = prune(raw, bad);
    raw = compact(raw) as Record<string, unknown>;
  }
  return { config: {}, errors: sortByLine(errors) };
}

function describeIssue(file: string, text: string, issue: z.core.$ZodIssue, root: unknown): ConfigIssue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const field = [...issue.path, key].map(String).join('.');
      const hint = closest(key, keysAt(issue.path));
      const message = `unknown key "${key}"${hint ? ` (did you mean "${hint}"?)` : ''}`;
      return withLine({ path: file, field, message }, text, key);
    });
  }
  const field = issue.path.map(String).join('.') || '(root)';
  const last = issue.path.findLast((p) => typeof p === 'string');
  return [
    withLine(
      { path: file, field, message: issueMessage(issue, root) },
      text,
      typeof last === 'string' ? last : undefined,
    ),
  ];
}

// The first line mentioning the key: good enough to point an editor at the right place.
function withLine(issue: ConfigIssue, text: string, key: string | undefined): ConfigIssue {
  if (key === undefined) return issue;
  const at = text.indexOf(JSON.stringify(key));
  if (at < 0) return issue;
  return { ...issue, line: text.slice(0, at).split('\n').length };
}

function offendingPaths(issue: z.core.$ZodIssue): PropertyKey[][] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => [...issue.path, key]);
  return [issue.path];
}

// Array elements are marked rather than spliced so the indices of the other issues stay valid.
const DROP = Symbol('drop');

// Removes the value at `at`; when the path does not exist (a missing required key), removes its parent.
function prune(root: Record<string, unknown>, at: readonly PropertyKey[]): Record<string, unknown> {
  if (at.length === 0) return {};
  let node: unknown = root;
  for (const key of at.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return prune(root, at.slice(0, -1));
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  const last = at[at.length - 1] as PropertyKey;
  if (Array.isArray(node) && typeof last === 'number' && last < node.length) node[last] = DROP;
  else if (typeof node === 'object' && node !== null && Object.hasOwn(node, last))
    delete (node as Record<PropertyKey, unknown>)[last];
  else return prune(root, at.slice(0, -1));
  return root;
}

function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== DROP).map(compact);
  if (typeof value !== 'object' || value === null) return value;
  for (const [key, child] of Object.entries(value)) (value as Record<string, unknown>)[key] = compact(child);
  return value;
}
