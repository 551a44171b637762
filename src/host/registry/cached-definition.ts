// The check every definition read back from the registry cache passes, field by field. It is
// written out rather than a zod schema because it runs on every CLI start over every cached agent:
// zod's checks of 1,000 definitions cost 40-100 ms of CPU in a fresh process (its schemas compile
// on first use), against a 250 ms budget for the whole start; these take about 2 ms. The table is
// typed by AgentDefinition's keys, so a field added to the schema without a check here does not
// compile, and a cached object with a key the table does not know is refused (the file is then
// parsed afresh). Tool names are held to what a parse can produce, beyond what the schema asks, and
// numbers to the ranges the schema holds them to (shared/ranges.ts).
import { type AgentDefinition, type RegistryIssue } from '../../shared/agent-definition.js';
import { isAgentName } from '../../shared/agent-name.js';
import { McpServerConfig } from '../../shared/mcp-config.js';
import { parseMcpName } from '../../shared/mcp-names.js';
import { isPermissionMode } from '../../shared/permission-modes.js';
import { RANGES } from '../../shared/ranges.js';
import { TOOL_NAMES } from '../../shared/tool-names.js';

/** A definition as the cache stores it: everything but the prompt. */
export type StoredDefinition = Omit<AgentDefinition, 'prompt'>;

type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isBoolean: Check = (v) => typeof v === 'boolean';
const seconds: Check = (v) => typeof v === 'number' && v > 0 && v <= RANGES.timeout.max;
const positiveInt: Check = (v) => Number.isSafeInteger(v) && (v as number) > 0;
/** A whole number within RANGES[key], as the schema holds the field. */
const ranged =
  (key: 'maxTurns' | 'tokenBudget' | 'maxDepth'): Check =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= RANGES[key].min && (v as number) <= RANGES[key].max;
const isRecord: Check = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings =
  (each: (s: string) => boolean): Check =>
  (v) =>
    Array.isArray(v) && v.every((s) => typeof s === 'string' && each(s));
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);

/** An agent's `mcpServers`: `{ name }` or `{ name, inline }`, the inline config as its schema holds it. */
const isServerList: Check = (v) =>
  Array.isArray(v) &&
  v.every(
    (e) =>
      isRecord(e) &&
      typeof (e as { name?: unknown }).name === 'string' &&
      Object.keys(e as object).every((k) => k === 'name' || k === 'inline') &&
      ((e as { inline?: unknown }).inline === undefined ||
        McpServerConfig.safeParse((e as { inline?: unknown }).inline).success),
  );

const BUILTIN: ReadonlySet<string> = new Set(TOOL_NAMES);
/** A tool a parse can grant: a built-in, or an MCP tool or server wildcard. */
const grantable = (t: string) => BUILTIN.has(t) || (parseMcpName(t) !== undefined && t.startsWith('mcp__'));
/** A `disallowedTools` entry as a parse writes it. */
const deniable = (t: string) => t === '*' || grantable(t) || /^Task\([^)]*\)$/.test(t);

const FIELDS: Record<keyof StoredDefinition, Check> = {
  name: (v) => typeof v === 'string' && isAgentName(v),
  description: isString,
  tools: strings(grantable),
  taskTypes: optional(strings(isAgentName)),
  disallowedTools: strings(deniable),
  model: (v) => typeof v === 'string' && v !== '' && !/\s/.test(v),
  timeout: seconds,
  idleTimeout: seconds,
  maxTurns: optional(ranged('maxTurns')),
  permissionMode: optional(isPermissionMode),
  tokenBudget: optional(ranged('tokenBudget')),
  output: optional((v) => v === 'handoff' || isRecord(v)),
  input: optional(isRecord),
  exposeAsTool: isBoolean,
  maxDepth: ranged('maxDepth'),
  isolation: optional((v) => v === 'worktree'),
  color: optional(isString),
  mcpServers: optional(isServerList),
  inheritsMcpTools: optional(isBoolean),
};
const KEYS: ReadonlySet<string> = new Set(Object.keys(FIELDS));
const CHECKS = Object.entries(FIELDS) as [string, Check][];

/** `value` as a stored definition, or undefined when any field is missing, extra or malformed. */
export function checkStoredDefinition(value: unknown): StoredDefinition | undefined {
  if (!isRecord(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!KEYS.has(key)) return undefined;
  for (const [key, check] of CHECKS) if (!check(record[key])) return undefined;
  return record as StoredDefinition;
}

/** Stored issues (`{ line?, field?, message }`) as the file's issues, or undefined when malformed. */
export function checkStoredIssues(value: unknown, file: string): RegistryIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: RegistryIssue[] = [];
  for (const item of value) {
    if (!isRecord(item)) return undefined;
    const { line, field, message } = item as Record<string, unknown>;
    if (typeof message !== 'string' || !optional(positiveInt)(line) || !optional(isString)(field))
      return undefined;
    out.push({
      path: file,
      ...(line === undefined ? {} : { line: line as number }),
      ...(field === undefined ? {} : { field: field as string }),
      message,
    });
  }
  return out;
}

/** Issues as stored: their path is the file's, so it is left out. */
export function storedIssues(issues: readonly RegistryIssue[]): Omit<RegistryIssue, 'path'>[] {
  return issues.map(({ path: _path, ...rest }) => rest);
}
