// What a run may do: its tools, the agent types it may spawn, its permission mode and how deep it
// may still nest. A child's grant is always a subset of its parent's: ancestors' disallowedTools
// and a read-only mode bind the whole subtree, and nesting tools vanish past the depth allowance.
import { MUTATING_TOOLS, NESTING_FILTERED_TOOLS, toolMatches } from '../../shared/tools.js';
import { closest } from '../../shared/closest.js';
import type { AgentDefinition } from '../../shared/agent-definition.js';
import type { PermissionMode } from '../../shared/task.js';

/** The effective grant of one run. */
export interface Grant {
  tools: string[];
  /** Agent types its Task may spawn; undefined = any. */
  taskTypes: string[] | undefined;
  mode: PermissionMode;
  /** Tools denied to this run and every descendant. */
  deniedTools: string[];
  /** How many more levels of subagents may exist below this run. */
  depthLeft: number;
}

const STRICTNESS: Record<PermissionMode, number> = {
  bypassPermissions: 0,
  acceptEdits: 1,
  default: 2,
  plan: 3,
};

/** The stricter of two modes. */
export function stricterMode(a: PermissionMode, b: PermissionMode): PermissionMode {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

/** Removes tools matched by any pattern in `denied`. */
function without(tools: readonly string[], denied: readonly string[]): string[] {
  return tools.filter((tool) => !denied.some((pattern) => toolMatches(tool, pattern)));
}

/** The grant of a top-level run. */
export function rootGrant(def: AgentDefinition, mode: PermissionMode, globalMaxDepth: number): Grant {
  const effective = def.permissionMode ? stricterMode(def.permissionMode, mode) : mode;
  const denied = [...def.disallowedTools, ...(effective === 'plan' ? [...MUTATING_TOOLS] : [])];
  const tools = without(def.tools, denied);
  return {
    // A global maxDepth of 0 means no subagents at all.
    tools: globalMaxDepth > 0 ? tools : tools.filter((t) => !NESTING_FILTERED_TOOLS.has(t)),
    taskTypes: def.taskTypes,
    mode: effective,
    deniedTools: denied,
    depthLeft: globalMaxDepth,
  };
}

/** The grant of a child of `parent`, defined by `def`. */
export function childGrant(parent: Grant, def: AgentDefinition, callMode?: PermissionMode): Grant {
  let mode = stricterMode(parent.mode, def.permissionMode ?? parent.mode);
  if (callMode) mode = stricterMode(mode, callMode);
  const depthLeft = Math.max(0, Math.min(parent.depthLeft - 1, def.maxDepth));
  const denied = [
    ...parent.deniedTools,
    ...def.disallowedTools,
    ...(mode === 'plan' ? [...MUTATING_TOOLS] : []),
  ];
  let tools = without(def.tools, denied);
  if (depthLeft === 0) tools = tools.filter((t) => !NESTING_FILTERED_TOOLS.has(t));
  return { tools, taskTypes: def.taskTypes, mode, deniedTools: [...new Set(denied)], depthLeft };
}

/** Whether `grant` may spawn `type`, and the message for the model when not. */
export function maySpawn(grant: Grant, type: string): true | string {
  if (!grant.tools.includes('Task'))
    return 'this agent may not launch subagents (no Task tool at this depth)';
  if (grant.taskTypes && !grant.taskTypes.includes(type)) {
    const hint = closest(type, grant.taskTypes);
    return `this agent may only launch: ${grant.taskTypes.join(', ')} (asked for "${type}"${hint ? `; did you mean "${hint}"?` : ''})`;
  }
  return true;
}
