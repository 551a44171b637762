// The tool table: names, input schemas (Claude Code's, so agent files and prompts carry over),
// the tool -> capability map, profiles, nesting-filtered and concurrency-safe tools.
import * as z from 'zod';
import { isAgentName } from './agent-name.js';
import type { CapabilityName } from './capabilities.js';
import { CLAUDE_CODE_EQUIVALENTS, CLAUDE_CODE_ONLY_TOOLS, notProvidedMessage } from './claude-code-tools.js';
import { closest } from './closest.js';
import { looksLikeMcp, mcpPatternMatches, mcpToolName, parseMcpName } from './mcp-names.js';
import { TOOL_NAMES } from './tool-names.js';

/** Every built-in tool name. */
export const ToolName = z.enum(TOOL_NAMES);
/** A built-in tool name. */
export type ToolName = z.infer<typeof ToolName>;

// Each tool's input schema is built on its first use (z.lazy): a worker thread loads every tool,
// but a run is offered a few, and a classic zod schema binds every method of its class to itself,
// so building all of them cost each thread about 120 schema objects and a third of its load's CPU.
const positiveInt = () => z.number().int().positive();
const nonNegativeInt = () => z.number().int().min(0);

/** Read {file_path, offset?, limit?}: offset is the 1-based first line, limit the line count. */
export const ReadInput = z.lazy(() =>
  z.strictObject({
    file_path: z.string().min(1),
    offset: positiveInt().optional(),
    limit: positiveInt().optional(),
  }),
);
/** Write {file_path, content}. */
export const WriteInput = z.lazy(() => z.strictObject({ file_path: z.string().min(1), content: z.string() }));
/** Edit {file_path, old_string, new_string, replace_all?}. */
export const EditInput = z.lazy(() =>
  z.strictObject({
    file_path: z.string().min(1),
    old_string: z.string(),
    new_string: z.string(),
    replace_all: z.boolean().optional(),
  }),
);
/** Glob {pattern, path?}. */
export const GlobInput = z.lazy(() =>
  z.strictObject({ pattern: z.string().min(1), path: z.string().optional() }),
);
/** Grep: ripgrep-like options with Claude Code's names. */
export const GrepInput = z.lazy(() =>
  z.strictObject({
    pattern: z.string().min(1),
    path: z.string().optional(),
    glob: z.string().optional(),
    type: z.string().optional(),
    output_mode: z.enum(['content', 'files_with_matches', 'count']).optional(),
    '-i': z.boolean().optional(),
    '-n': z.boolean().optional(),
    '-A': nonNegativeInt().optional(),
    '-B': nonNegativeInt().optional(),
    '-C': nonNegativeInt().optional(),
    head_limit: positiveInt().optional(),
    multiline: z.boolean().optional(),
  }),
);
/** LS {path, ignore?}. */
export const LSInput = z.lazy(() =>
  z.strictObject({ path: z.string().min(1), ignore: z.array(z.string()).optional() }),
);
/** Bash {command, timeout? (ms), description?}. */
export const BashInput = z.lazy(() =>
  z.strictObject({
    command: z.string().min(1),
    timeout: positiveInt().max(600_000).optional(),
    description: z.string().optional(),
  }),
);
/** Task: delegate to a subagent. timeout is in seconds. */
export const TaskToolInput = z.lazy(() =>
  z.strictObject({
    description: z.string().min(1),
    prompt: z.string().min(1),
    subagent_type: z.string().min(1),
    model: z.string().optional(),
    run_in_background: z.boolean().optional(),
    resume: z.string().optional(),
    max_turns: positiveInt().max(10_000).optional(),
    timeout: z.number().positive().max(86_400).optional(),
  }),
);
/** TaskOutput: wait for (or poll) a background run. timeout in seconds; 0 polls. */
export const TaskOutputInput = z.lazy(() =>
  z.strictObject({
    agent_id: z.string().min(1),
    block: z.boolean().optional(),
    timeout: z.number().min(0).optional(),
  }),
);
/** TaskStop: cancel a background run. */
export const TaskStopInput = z.lazy(() => z.strictObject({ agent_id: z.string().min(1) }));
/** One todo item. */
export const TodoItem = z.lazy(() =>
  z.strictObject({
    content: z.string().min(1),
    status: z.enum(['pending', 'in_progress', 'completed']),
    activeForm: z.string().optional(),
    id: z.string().optional(),
  }),
);
/** A todo item. */
export type TodoItem = z.infer<typeof TodoItem>;
/** TodoWrite {todos}: replaces the tree's todo list. */
export const TodoWriteInput = z.lazy(() => z.strictObject({ todos: z.array(TodoItem).max(200) }));
/** TodoRead {}. */
export const TodoReadInput = z.lazy(() => z.strictObject({}));
/** WebFetch {url, prompt}: `prompt` says what to look for in the page. */
export const WebFetchInput = z.lazy(() =>
  z.strictObject({
    url: z.string().min(1).max(2000),
    prompt: z.string().max(10_000).optional(),
  }),
);
/**
 * Capabilities each tool needs on its port. `events.emit` is granted to every run. WebSearch needs
 * none: the model's provider runs it, and the host decides at launch whether it is offered.
 */
const TOOL_CAPABILITIES: Record<ToolName, readonly CapabilityName[]> = {
  Read: ['fs.read', 'fs.stat'],
  Write: ['fs.write', 'fs.stat'],
  Edit: ['fs.read', 'fs.write', 'fs.stat'],
  Glob: ['fs.glob'],
  Grep: ['fs.glob', 'fs.readMany', 'fs.stat'],
  LS: ['fs.list'],
  Bash: ['exec.run'],
  Task: ['agents.task'],
  TaskOutput: ['agents.output'],
  TaskStop: ['agents.stop'],
  TodoWrite: ['todos.write'],
  TodoRead: ['todos.read'],
  WebFetch: ['web.fetch'],
  WebSearch: [],
};

/** Tools that only read, safe to run in parallel within one model turn. */
export const CONCURRENCY_SAFE_TOOLS: ReadonlySet<string> = new Set(['Read', 'Glob', 'Grep', 'LS', 'Task']);

/** Tools a nested agent loses unless its definition sets maxDepth > 0. */
export const NESTING_FILTERED_TOOLS: ReadonlySet<string> = new Set([
  'Task',
  'TaskOutput',
  'TaskStop',
  'TodoWrite',
  'TodoRead',
]);

/** Tools that change the world: denied in `plan` (read-only) mode. */
export const MUTATING_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'Bash']);

/** Named tool sets a definition can use instead of a list. */
export const Profile = z.enum(['read-only', 'research', 'writer', 'full-access']);
/** A profile name. */
export type Profile = z.infer<typeof Profile>;

/** What each profile expands to. */
export const PROFILES: Record<Profile, readonly ToolName[]> = {
  'read-only': ['Read', 'Glob', 'Grep', 'LS'],
  research: ['Read', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch', 'TodoWrite', 'TodoRead'],
  writer: ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'LS', 'TodoWrite', 'TodoRead'],
  'full-access': ToolName.options,
};

const TASK_SPEC = /^(?:Task|Agent)\s*\(([^)]*)\)$/;

/** One parsed entry of a `tools` field. */
export type ToolSpec =
  | { kind: 'tool'; name: ToolName }
  | { kind: 'all' }
  | { kind: 'mcp'; name: string }
  | { kind: 'task'; types: string[] }
  /** A Claude Code tool cadre does not provide: the entry grants nothing, and `message` says so. */
  | { kind: 'ignored'; name: string; message: string };

/** Splits a comma list of tools, keeping commas inside `Task(...)` with it. */
export function splitToolList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * Parses one tool entry. Claude Code's names for cadre's tools map to them (`MultiEdit` is Edit,
 * `Agent(a, b)` is `Task(a, b)`, `mcp__server` is `mcp__server__*`); its tools cadre lacks are
 * `ignored`; a name that is a tool nowhere is an error whose hint never names `*`.
 */
export function parseToolSpec(entry: string): ToolSpec | { error: string } {
  const name = entry.trim();
  if (name === '*') return { kind: 'all' };
  const task = TASK_SPEC.exec(name);
  if (task) {
    const types = (task[1] ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t.length > 0);
    const bad = types.find((t) => !isAgentName(t) && t !== '*');
    if (bad !== undefined)
      return { error: `${name.slice(0, name.indexOf('('))}(...) names an invalid agent type "${bad}"` };
    return types.length === 0 || types.includes('*')
      ? { kind: 'tool', name: 'Task' }
      : { kind: 'task', types };
  }
  if (looksLikeMcp(name)) {
    const mcp = parseMcpName(name);
    if (mcp !== undefined) return { kind: 'mcp', name: mcpToolName(mcp) };
    return {
      error: `"${name}" is not an MCP tool name (write mcp__server__tool, mcp__server__* or mcp__server)`,
    };
  }
  const known = ToolName.safeParse(
    Object.hasOwn(CLAUDE_CODE_EQUIVALENTS, name) ? CLAUDE_CODE_EQUIVALENTS[name] : name,
  );
  if (known.success) return { kind: 'tool', name: known.data };
  if (CLAUDE_CODE_ONLY_TOOLS.has(name)) return { kind: 'ignored', name, message: notProvidedMessage(name) };
  const hint = closest(name, [
    ...ToolName.options,
    ...Object.keys(CLAUDE_CODE_EQUIVALENTS),
    ...CLAUDE_CODE_ONLY_TOOLS,
  ]);
  return { error: `unknown tool "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}` };
}

/** True when `tool` (a concrete tool or mcp name) is matched by `pattern` (`*`, `mcp__s`, `mcp__s__*`). */
export function toolMatches(tool: string, pattern: string): boolean {
  if (pattern === '*' || pattern === tool) return true;
  if (looksLikeMcp(pattern)) return mcpPatternMatches(pattern, tool);
  return TASK_SPEC.test(pattern) && tool === 'Task';
}

/** The capabilities a set of tools implies (always including `events.emit`). */
export function capabilitiesFor(tools: readonly string[]): CapabilityName[] {
  const caps = new Set<CapabilityName>(['events.emit']);
  for (const tool of tools) {
    if (tool.startsWith('mcp__')) caps.add('mcp.call');
    const known = ToolName.safeParse(tool);
    if (known.success) for (const cap of TOOL_CAPABILITIES[known.data]) caps.add(cap);
  }
  return [...caps];
}
