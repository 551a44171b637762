// Turns a definition's `tools`, `profile` and `disallowedTools` into the concrete tool set a run
// is granted. Omitted tools inherit every built-in; an entry cadre does not know is an error, so a
// typo can never widen or silently narrow what an agent may do.
import {
  type Profile,
  PROFILES,
  type ToolName,
  ToolName as ToolNames,
  parseToolSpec,
  splitToolList,
  toolMatches,
} from '../../shared/tools.js';

/** What a definition says about tools, as written. */
export interface ToolFields {
  tools?: string | string[] | undefined;
  disallowedTools?: string | string[] | undefined;
  profile?: Profile | undefined;
}

/** A tool problem, naming the field it came from. */
export interface ToolIssue {
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
}

/** Entries of a comma string or a YAML/JSON list; a list item may itself hold a comma list. */
export function toolEntries(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((item) => splitToolList(item));
}

/** Resolves tools: profile ∪ tools (or every built-in when both are omitted), minus disallowedTools. */
export function resolveTools(fields: ToolFields): ToolResolution {
  const errors: ToolIssue[] = [];
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
    else if (spec.kind === 'all') {
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

  const denied = toolEntries(fields.disallowedTools);
  let tools = [...ToolNames.options.filter((t) => builtins.has(t)), ...new Set(mcp)];
  for (const entry of denied) {
    const spec = parseToolSpec(entry);
    if ('error' in spec) {
      errors.push({ field: 'disallowedTools', message: spec.error });
      continue;
    }
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
    errors.push({
      field: denied.length > 0 ? 'disallowedTools' : 'tools',
      message: 'leaves the agent with no tools; an agent needs at least one',
    });
  }
  const result: ToolResolution = {
    tools,
    // `mcp__server` is kept as `mcp__server__*`, the form the runtime matches tool names with.
    disallowedTools: denied.map((d) => {
      const spec = parseToolSpec(d);
      return !('error' in spec) && spec.kind === 'mcp' ? spec.name : d.replace(/\s+/g, ' ').trim();
    }),
    allTools,
    errors,
  };
  if (taskTypes !== undefined) result.taskTypes = [...taskTypes];
  return result;
}
