// Parses one agent definition, either a Markdown file with YAML front matter or a JSON entry from
// config.json / `--agents`. Pure: content comes in as an argument, problems come out as values.
import { buildDefinition, type BuildContext, type ParsedAgent } from './build-definition.js';
import { splitFrontmatter } from './frontmatter.js';

export type { ParsedAgent } from './build-definition.js';

/** Largest agent file read (a generous cap: prompts are text, and the whole file is kept in memory). */
export const MAX_AGENT_FILE_BYTES = 4 * 1024 * 1024;

/** Options shared by both parsers. */
export interface ParseOptions {
  /** Defaults for `timeout` / `idleTimeout` (seconds) when the definition leaves them out. */
  defaults?: { timeout: number; idleTimeout: number };
}

/**
 * Parses a Markdown agent file: front matter fields, then the body as the system prompt. A file
 * with no front matter at all is not an agent (a README beside the agents): it is skipped with a
 * warning, as Claude Code skips it. Never throws.
 */
export function parseAgentFile(file: string, content: string, options: ParseOptions = {}): ParsedAgent {
  const fail = (message: string, line?: number): ParsedAgent => ({
    errors: [line === undefined ? { path: file, message } : { path: file, line, message }],
    warnings: [],
  });
  if (content.length > MAX_AGENT_FILE_BYTES)
    return fail(`file is larger than ${MAX_AGENT_FILE_BYTES / 1024 / 1024} MiB; not loaded`);
  if (looksBinary(content))
    return fail('binary file, not an agent definition (expected UTF-8 Markdown with YAML front matter)');
  if (!/\S/.test(content)) return skipped(file, 'empty file');

  const split = splitFrontmatter(content);
  if (!split.ok)
    return split.noFrontmatter ? skipped(file, 'no front matter') : fail(split.message, split.line);
  const ctx: BuildContext = { path: file, keyLines: split.keyLines };
  if (options.defaults) ctx.defaults = options.defaults;
  const result = buildDefinition(split.data, split.body, ctx);
  if (split.retried) {
    const { problem, line, quoted } = split.retried;
    result.warnings.unshift({
      path: file,
      ...(line === undefined ? {} : { line }),
      message: `front matter is not valid YAML (${problem}); read as Claude Code reads it, with the value of ${quoted.join(', ')} quoted (quote it in the file to silence this)`,
    });
  }
  return result;
}

function skipped(file: string, what: string): ParsedAgent {
  return {
    errors: [],
    warnings: [
      {
        path: file,
        line: 1,
        message: `${what}: not an agent definition, skipped (an agent file starts with "---", name and description fields, "---")`,
      },
    ],
  };
}

/** Parses one JSON entry (`agents.<name>` in config.json, or a key of `--agents`). Never throws. */
export function parseAgentEntry(
  name: string,
  entry: unknown,
  where: string,
  options: ParseOptions & { fieldPrefix?: string } = {},
): ParsedAgent {
  const fieldPrefix = options.fieldPrefix ?? `agents.${name}`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    return {
      errors: [
        {
          path: where,
          field: fieldPrefix,
          message: 'must be an object such as { "description": "...", "prompt": "..." }',
        },
      ],
      warnings: [],
    };
  }
  const fields: Record<string, unknown> = { ...(entry as Record<string, unknown>) };
  if ('name' in fields && fields.name !== name) {
    return {
      errors: [
        {
          path: where,
          field: `${fieldPrefix}.name`,
          message: `"${String(fields.name)}" differs from its key "${name}"; the key is the name (remove the field)`,
        },
      ],
      warnings: [],
    };
  }
  fields.name = name;
  const ctx: BuildContext = { path: where, fieldPrefix };
  if (options.defaults) ctx.defaults = options.defaults;
  return buildDefinition(fields, undefined, ctx);
}

// NUL never appears in text; many U+FFFD means the bytes were not UTF-8. indexOf, not a
// character loop: this runs on every file of every load.
function looksBinary(content: string): boolean {
  const end = Math.min(content.length, 8192);
  const nul = content.indexOf('\u0000');
  if (nul !== -1 && nul < end) return true;
  let replaced = 0;
  for (let at = content.indexOf('\uFFFD'); at !== -1 && at < end; at = content.indexOf('\uFFFD', at + 1))
    replaced++;
  return replaced > 8 && replaced > end / 100;
}
