// Turns a definition's `tools`, `profile` and `disallowedTools` into the concrete tool set a run
// is granted. Omitted tools inherit every built-in; Claude Code's names map to cadre's tools, its
// tools cadre lacks are dropped with a warning (that only narrows), and a name that is a tool
// nowhere is an error, so a typo can never widen what an agent may do.
import {
  type Profile,
  PROFILES,
  type ToolName,
  ToolName as ToolNames,
  parseToolSpec,
  splitToolList,
  type ToolSpec,
  toolMatches,
} from '../../shared/tools.js';

/** What a definition says about tools, as written. */
export interface ToolFields {
  tools?: string | string[] | undefined;
  disallowedTools?: string | string[] | undefined;
  profile?: Profile | undefined;
}

/** A tool problem, naming the field it came from. */
interface ToolIssue {
  field: 'tools' | 'disallowedTools';
  message: string;
}

/** The resolved tool set. */
export interface ToolResolution {
  /** Built-in tools in canonical order, then mcp tools and patterns in the order written. */
  tools: string[];
  /** Agent types Task may spawn; absent = any (when Task is granted at all). */
  taskTypes?: string[];
  /** The deny entries as written (normalised), kept so the runtime binds the agent's subtree too. */
  disallowedTools: string[];
  /** True for "every tool" (omitted, `*`, full-access): MCP tools of every configured server too. */
  allTools: boolean;
  errors: ToolIssue[];
  /** Entries that grant nothing (Claude Code tools cadre does not provide). */
  warnings: ToolIssue[];
}

/** Entries of a comma string or a YAML/JSON list; a list item may itself hold a comma list. */
export function toolEntries(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((item) => splitToolList(item));
}

/** Resolves tools: profile ∪ tools (or every built-in when both are omitted), minus disallowedTools. */
export function resolveTools(fields: ToolFields): ToolResolution {
  const errors: ToolIssue[] = [];
  const warnings: ToolIssue[] = [];
  const ignored: string[] = [];
  const builtins = new Set<ToolName>();
  const mcp: string[] = [];
  let taskTypes: Set<string> | undefined;
  let anyTask = false;

  const granted = toolEntries(fields.tools);
  let allTools =
    (fields.tools === undefined && fields.profile === undefined) || fields.profile === 'full-access';
  if (fields.tools === undefined && fields.profile === undefined)
    for (const t of ToolNames.options) builtins.add(t);
  if (fields.profile !== undefined) for (const t of PROFILES[fields.profile]) builtins.add(t);
  // A plain grant of Task (inherited, from a profile, `*` or `Task`) means any type; Task(a, b) narrows only on its own.
  if (builtins.has('Task')) anyTask = true;
  for (const entry of granted) {
    const spec = parseToolSpec(entry);
    if ('error' in spec) errors.push({ field: 'tools', message: spec.error });
    else if (spec.kind === 'ignored') {
      warnings.push({ field: 'tools', message: spec.message });
      ignored.push(spec.name);
    } else if (spec.kind === 'all') {
      for (const t of ToolNames.options) builtins.add(t);
      anyTask = true;
      allTools = true;
    } else if (spec.kind === 'mcp') mcp.push(spec.name);
    else if (spec.kind === 'task') {
      builtins.add('Task');
      taskTypes = new Set([...(taskTypes ?? []), ...spec.types]);
    } else builtins.add(spec.name);
    if (!('error' in spec) && spec.kind === 'tool' && spec.name === 'Task') anyTask = true;
  }
  if (anyTask) taskTypes = undefined;
  if (fields.tools !== undefined && granted.length === 0) {
    errors.push({
      field: 'tools',
      message: 'is empty: omit the field to inherit every tool, or list at least one',
    });
  }

  const denied: string[] = [];
  let tools = [...ToolNames.options.filter((t) => builtins.has(t)), ...new Set(mcp)];
  for (const entry of toolEntries(fields.disallowedTools)) {
    const spec = parseToolSpec(entry);
    if ('error' in spec) {
      errors.push({ field: 'disallowedTools', message: spec.error });
      continue;
    }
    // Denying a tool cadre does not have changes nothing.
    if (spec.kind === 'ignored') continue;
    denied.push(canonical(spec));
    if (spec.kind === 'task') {
      // Removing some types only narrows an explicit list; with "any type" the runtime enforces the entry.
      if (taskTypes !== undefined) {
        for (const t of spec.types) taskTypes.delete(t);
        if (taskTypes.size === 0) tools = tools.filter((t) => t !== 'Task');
      }
      continue;
    }
    const pattern = spec.kind === 'all' ? '*' : spec.name;
    if (spec.kind === 'all') allTools = false;
    tools = tools.filter((t) => !toolMatches(t, pattern));
  }
  if (!tools.includes('Task')) taskTypes = undefined;
  if (tools.length === 0 && errors.length === 0) {
    const lacking = ignored.length > 0 ? ` (cadre does not provide ${ignored.join(', ')})` : '';
    errors.push({
      field: denied.length > 0 ? 'disallowedTools' : 'tools',
      message: `leaves the agent with no tools${lacking}; an agent needs at least one`,
    });
  }
  const result: ToolResolution = { tools, disallowedTools: denied, allTools, errors, warnings };
  if (taskTypes !== undefined) result.taskTypes = [...taskTypes];
  return result;
}

/** An entry in the spelling the runtime matches (`Task(a, b)` for `Agent(a,b)`, `Edit` for `MultiEdit`). */
function canonical(spec: Exclude<ToolSpec, { kind: 'ignored' }>): string {
  switch (spec.kind) {
    case 'all':
      return '*';
    case 'task':
      return `Task(${spec.types.join(', ')})`;
    default:
      return spec.name;
  }
}
