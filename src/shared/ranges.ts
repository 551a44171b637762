// The accepted range of every number a user gives cadre, in one table: the config schema, agent
// definitions, task inputs and the CLI flags check against it, and the README lists it. A value outside its range is an error that
// names the field or flag, never clamped in silence (`--concurrency 100000` once started 311 threads).
import * as z from 'zod';

/** A closed range; `integer` for counts. */
export interface NumberRange {
  min: number;
  max: number;
  integer: boolean;
  /** The unit, for messages and docs. */
  unit?: string;
}

/** Ranges by config key (a dotted path inside a block); the flags of the same name share them. */
export const RANGES = {
  concurrency: { min: 1, max: 1024, integer: true },
  queueLimit: { min: 0, max: 1_000_000, integer: true },
  maxDepth: { min: 0, max: 16, integer: true },
  tokenBudget: { min: 1, max: 1_000_000_000_000, integer: true, unit: 'tokens' },
  timeout: { min: 0.001, max: 86_400, integer: false, unit: 'seconds' },
  idleTimeout: { min: 0.001, max: 86_400, integer: false, unit: 'seconds' },
  memoryLimitMb: { min: 16, max: 1_048_576, integer: true, unit: 'MB' },
  maxReplyChars: { min: 1_000, max: 50_000_000, integer: true, unit: 'characters' },
  maxToolInputChars: { min: 1_000, max: 50_000_000, integer: true, unit: 'characters' },
  maxTurns: { min: 1, max: 10_000, integer: true },
  maxToolCallsPerMessage: { min: 1, max: 1000, integer: true },
  maxTasksPerMessage: { min: 1, max: 1000, integer: true },
  maxSubagents: { min: 1, max: 100_000, integer: true },
  prestartThreads: { min: 0, max: 1024, integer: true },
  'webFetch.maxBytes': { min: 1, max: 50 * 1024 * 1024, integer: true, unit: 'bytes' },
  'webFetch.timeout': { min: 0.001, max: 600, integer: false, unit: 'seconds' },
  'webSearch.maxUses': { min: 1, max: 100, integer: true },
  /** An MCP server's `timeout`: seconds one tool call may take. */
  mcpTimeout: { min: 0.001, max: 86_400, integer: false, unit: 'seconds' },
  /** An MCP server's `startupTimeout`: seconds to start, initialise and list tools. */
  mcpStartupTimeout: { min: 0.001, max: 86_400, integer: false, unit: 'seconds' },
  /** An MCP server's `maxOutputChars`: the largest result text handed to the model. */
  mcpMaxOutputChars: { min: 1, max: 10_000_000, integer: true, unit: 'characters' },
} as const satisfies Record<string, NumberRange>;

/** A key of RANGES. */
export type RangedKey = keyof typeof RANGES;

/** A zod number held to the range of `key` (config files, `.mcp.json`, agent front matter). */
export function rangedNumber(key: RangedKey): z.ZodNumber {
  const range: NumberRange = RANGES[key];
  const base = range.integer ? z.number().int() : z.number();
  return base.min(range.min).max(range.max);
}

/** Why `value` is outside `range`, or undefined when it is inside. */
export function rangeProblem(value: number, range: NumberRange): string | undefined {
  const what = range.integer ? 'a whole number' : 'a number';
  const unit = range.unit ? ` ${range.unit}` : '';
  if (!Number.isFinite(value) || (range.integer && !Number.isInteger(value)))
    return `expected ${what} from ${range.min} to ${range.max}${unit}`;
  if (value < range.min || value > range.max)
    return `must be from ${range.min} to ${range.max}${unit} (got ${value})`;
  return undefined;
}
