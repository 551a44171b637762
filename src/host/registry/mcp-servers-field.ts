// An agent's `mcpServers` front matter field, as Claude Code writes it: a list whose items are
// names of configured servers or `{name: config}` maps of inline servers (one map alone is taken
// too). Each problem names the server and the field, as `mcpServers.<server>.<field>`.
import type * as z from 'zod';
import { closest } from '../../shared/closest.js';
import {
  MCP_SERVER_KEYS,
  McpServerConfig,
  McpServerName,
  type McpServerRef,
} from '../../shared/mcp-config.js';
import { describeValue, issueMessage } from '../config/zod-messages.js';

/** One problem in the field. */
export interface McpFieldIssue {
  field: string;
  message: string;
}

const SHAPE =
  'must be a list of server names and {name: config} entries, e.g. [github, {docs: {command: docs-mcp}}]';

/** The references the field makes, and every problem found (bad entries are left out). */
export function parseMcpServersField(value: unknown): { refs: McpServerRef[]; issues: McpFieldIssue[] } {
  const refs: McpServerRef[] = [];
  const issues: McpFieldIssue[] = [];
  if (value === undefined || value === null) return { refs, issues };
  // `mcpServers: github, docs` is read like a comma list of tools.
  const items: unknown[] = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : typeof value === 'object'
        ? [value]
        : [];
  if (items.length === 0 && !Array.isArray(value) && typeof value !== 'string') {
    issues.push({ field: 'mcpServers', message: `${SHAPE} (got ${describeValue(value)})` });
    return { refs, issues };
  }
  const seen = new Set<string>();
  const add = (ref: McpServerRef, field: string) => {
    if (seen.has(ref.name)) issues.push({ field, message: `names server "${ref.name}" twice` });
    else {
      seen.add(ref.name);
      refs.push(ref);
    }
  };
  items.forEach((item, index) => {
    if (typeof item === 'string') {
      const name = McpServerName.safeParse(item);
      if (name.success) add({ name: name.data }, `mcpServers.${index}`);
      else
        issues.push({
          field: `mcpServers.${index}`,
          message: `"${item}" ${name.error.issues[0]?.message ?? 'is not a server name'}`,
        });
      return;
    }
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      issues.push({ field: `mcpServers.${index}`, message: `${SHAPE} (got ${describeValue(item)})` });
      return;
    }
    for (const [name, config] of Object.entries(item)) {
      const field = `mcpServers.${name}`;
      const okName = McpServerName.safeParse(name);
      if (!okName.success) {
        issues.push({
          field,
          message: `"${name}" ${okName.error.issues[0]?.message ?? 'is not a server name'}`,
        });
        continue;
      }
      const parsed = McpServerConfig.safeParse(config);
      if (parsed.success) add({ name, inline: parsed.data }, field);
      else for (const issue of parsed.error.issues) issues.push(...describe(field, issue, config));
    }
  });
  return { refs, issues };
}

function describe(field: string, issue: z.core.$ZodIssue, config: unknown): McpFieldIssue[] {
  const at = [field, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const hint = closest(key, MCP_SERVER_KEYS);
      return {
        field: [...at, key].join('.'),
        message: `unknown key${hint ? ` (did you mean "${hint}"?)` : ''}`,
      };
    });
  }
  return [{ field: at.join('.'), message: issueMessage(issue, config) }];
}
