// The project's `.mcp.json`, Claude Code's file for project MCP servers: `{ "mcpServers": {...} }`.
// A file that is not JSON (or not that shape) is a config error like any other; one server entry
// cadre cannot read only makes that server unusable, with a message naming it and its field,
// because the file is shared with Claude Code and may carry settings cadre does not have.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type * as z from 'zod';
import type { RegistryIssue } from '../../shared/agent-definition.js';
import { closest } from '../../shared/closest.js';
import { MCP_SERVER_KEYS, McpServerConfig, McpServerName } from '../../shared/mcp-config.js';
import { parseJsonText } from './json-text.js';
import type { McpJsonServers } from './merge.js';
import { issueMessage } from './zod-messages.js';

/** Where a project keeps its `.mcp.json`. */
export function mcpJsonPath(projectDir: string): string {
  return path.join(projectDir, '.mcp.json');
}

/** Reads `.mcp.json`; a missing file is no servers, never an error. */
export async function readMcpJson(
  file: string,
): Promise<{ value?: McpJsonServers; errors: RegistryIssue[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { errors: [] };
    // An empty directory is what the command sandbox holds a missing protected path with (left
    // behind when cadre was killed outright): no servers, as for a missing file.
    if (code === 'EISDIR' && (await readdir(file).catch(() => ['?'])).length === 0) return { errors: [] };
    return { errors: [{ path: file, message: `cannot read: ${(error as Error).message}` }] };
  }
  return parseMcpJson(file, text);
}

/** Parses `.mcp.json` text (pure). */
export function parseMcpJson(
  file: string,
  text: string,
): { value?: McpJsonServers; errors: RegistryIssue[] } {
  if (text.trim() === '') return { value: { path: file, servers: {} }, errors: [] };
  const json = parseJsonText(text);
  if (!json.ok)
    return {
      errors: [
        {
          path: file,
          line: json.line,
          message: `${json.message} at line ${json.line}, column ${json.column}`,
        },
      ],
    };
  const root = json.value;
  const servers =
    typeof root === 'object' && root !== null ? (root as Record<string, unknown>).mcpServers : undefined;
  if (
    typeof root !== 'object' ||
    root === null ||
    Array.isArray(root) ||
    (servers !== undefined && !isMap(servers))
  )
    return {
      errors: [
        { path: file, message: 'must be a JSON object such as { "mcpServers": { "github": { ... } } }' },
      ],
    };
  const out: McpJsonServers = { path: file, servers: {} };
  for (const [name, raw] of Object.entries((servers ?? {}) as Record<string, unknown>)) {
    const okName = McpServerName.safeParse(name);
    if (!okName.success) {
      out.servers[name] = {
        error: `mcpServers.${name}: "${name}" ${okName.error.issues[0]?.message ?? 'is not a server name'}`,
      };
      continue;
    }
    const parsed = McpServerConfig.safeParse(raw);
    out.servers[name] = parsed.success
      ? { config: parsed.data }
      : { error: parsed.error.issues.map((issue) => describe(name, issue, raw)).join('; ') };
  }
  return { value: out, errors: [] };
}

function isMap(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(name: string, issue: z.core.$ZodIssue, raw: unknown): string {
  const at = ['mcpServers', name, ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys')
    return issue.keys
      .map((key) => {
        const hint = closest(key, MCP_SERVER_KEYS);
        return `${at}.${key}: cadre does not know this key${hint ? ` (did you mean "${hint}"?)` : ''}`;
      })
      .join('; ');
  return `${at}: ${issueMessage(issue, raw)}`;
}
