// Reads the `--agents` flag: inline JSON (`{"name": {...}}`) or the path of a JSON file holding
// the same object. Returns the raw entries; the registry parses each one like a config.json entry.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RegistryIssue } from '../../shared/agent-definition.js';
import { parseJsonText } from '../config/json-text.js';

/** The entries of `--agents`, the label issues use for them, and any problem reading them. */
export interface CliAgents {
  /** `--agents` for inline JSON, otherwise the file's absolute path. */
  where: string;
  entries: Record<string, unknown>;
  errors: RegistryIssue[];
}

/** Where issues of agents given to `createRuntime` as objects point. */
const CODE_AGENTS_LABEL = 'options.agents';

/**
 * Reads `--agents VALUE`; a value starting with `{` is JSON, anything else a file path relative
 * to `cwd`. An object (agents defined in code) is taken as the entries themselves.
 */
export async function readCliAgents(
  value: string | Record<string, unknown>,
  cwd: string,
): Promise<CliAgents> {
  if (typeof value !== 'string') {
    if (Array.isArray(value) || value === null || typeof value !== 'object')
      return {
        where: CODE_AGENTS_LABEL,
        entries: {},
        errors: [
          { path: CODE_AGENTS_LABEL, message: 'must be an object mapping agent names to definitions' },
        ],
      };
    return { where: CODE_AGENTS_LABEL, entries: value, errors: [] };
  }
  const inline = value.trimStart().startsWith('{');
  const where = inline ? '--agents' : path.resolve(cwd, value);
  const fail = (message: string, line?: number): CliAgents => ({
    where,
    entries: {},
    errors: [line === undefined ? { path: where, message } : { path: where, line, message }],
  });
  let text = value;
  if (!inline) {
    try {
      text = await readFile(where, 'utf8');
    } catch (error) {
      return fail(
        `--agents: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass JSON such as '{"reviewer": {"description": "...", "prompt": "..."}}' or a JSON file path`,
      );
    }
  }
  const json = parseJsonText(text);
  if (!json.ok)
    return fail(
      `${json.message} at line ${json.line}, column ${json.column}`,
      inline ? undefined : json.line,
    );
  if (typeof json.value !== 'object' || json.value === null || Array.isArray(json.value)) {
    return fail('--agents must be a JSON object mapping agent names to definitions');
  }
  return { where, entries: json.value as Record<string, unknown>, errors: [] };
}
