// The shape of one tool's logic in the worker: its model-facing definition, its input schema and
// `run`, plus the small helpers every tool shares (result values, input parsing, JSON schema).
import * as z from 'zod';
import type { GrantedCapabilities, ToolImage } from '../../shared/capabilities.js';
import type { RunCaps } from '../../shared/run-spec.js';
import { formatZodError } from '../../shared/zod-format.js';

/** What a tool hands back: the tool_result text, and whether the model should read it as a failure. */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** Images shown to the model after the text (MCP tools). */
  images?: ToolImage[];
}

/** What a tool may touch during one call. Everything outside the worker goes through `caps`. */
export interface ToolContext {
  caps: GrantedCapabilities;
  /** The project directory: relative paths are resolved against it. */
  cwd: string;
  limits: RunCaps;
  /** Files read in this run (absolute path -> mtime seen), so Write and Edit can refuse blind or stale changes. */
  readState: Map<string, { mtimeMs: number }>;
  signal?: AbortSignal;
}

/** A tool as the Messages API's `tools` parameter takes it. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** One tool's logic. `run` returns failures the model should see as values and throws only on runtime faults. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  run(input: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** A successful result. */
export function toolText(content: string): ToolResult {
  return { content, isError: false };
}

/** A failed result the model will see with `is_error: true`. */
export function toolError(content: string): ToolResult {
  return { content, isError: true };
}

/** Parses model input: the data, or an error result that names every bad field. */
export function parseToolInput<S extends z.ZodType>(
  toolName: string,
  schema: S,
  input: unknown,
): { ok: true; data: z.infer<S> } | { ok: false; result: ToolResult } {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const lines = formatZodError(parsed.error, `${toolName} input`);
  return { ok: false, result: toolError(`invalid_input: ${lines.join('; ')}`) };
}

// zod writes Number.MAX_SAFE_INTEGER as the bound of every `.int()`: pure noise for a model.
const NOISE_MAXIMUM = Number.MAX_SAFE_INTEGER;

/**
 * A tool whose JSON input schema is converted from its zod schema (`input`) when first asked for:
 * a thread converts only the schemas of the tools its runs are offered, not every tool's at load.
 */
export function defineTool(
  spec: Omit<Tool, 'inputSchema'> & { input: z.ZodType; descriptions?: Record<string, string> },
): Tool {
  const { input, descriptions, ...tool } = spec;
  let json: Record<string, unknown> | undefined;
  return {
    ...tool,
    get inputSchema() {
      json ??= toInputSchema(input, descriptions);
      return json;
    },
  };
}

/**
 * The JSON schema the Messages API accepts for a zod object schema: no `$schema` key, no
 * MAX_SAFE_INTEGER bounds, and a model-facing description on each named property.
 */
export function toInputSchema(
  schema: z.ZodType,
  descriptions: Record<string, string> = {},
): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  const properties = json.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [key, prop] of Object.entries(properties ?? {})) {
    if (prop.maximum === NOISE_MAXIMUM) delete prop.maximum;
    const description = descriptions[key];
    if (description !== undefined) prop.description = description;
  }
  if (!Array.isArray(json.required)) json.required = [];
  return json;
}
