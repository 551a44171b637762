// Agent names as Claude Code's files write them (`code-reviewer`, `powershell-5.1-expert`,
// `Data_Scientist`): shown as written, looked up case-insensitively. What a name may not hold is
// what would break a place it is used: `:` and `/` (`Task(a, b)` lists, rule specifiers, paths),
// `\`, spaces, and a leading `-` (a flag).
import { closest } from './closest.js';

/** Letters, digits, `.`, `_` and `-`; the first character a letter, digit or `_`; at most 64 characters. */
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

/** What a valid name looks like, for messages. */
export const AGENT_NAME_RULE =
  'must be letters, digits, ".", "_" or "-" (no spaces, ":", "/" or "\\"), start with a letter, digit or "_", and have at most 64 characters (e.g. code-reviewer)';

/** True for a valid agent name. */
export function isAgentName(name: string): boolean {
  return AGENT_NAME_PATTERN.test(name);
}

/** The key an agent is looked up by: names differing only in case are one agent. */
export function agentKey(name: string): string {
  return name.toLowerCase();
}

/** What looking an agent name up found: the name as its definition writes it, or a "did you mean". */
export type AgentLookup =
  { found: string; hint?: undefined } | { found?: undefined; hint: string | undefined };

/**
 * The one agent-name lookup: names by agentKey (any case). A name that is not there gets `hint`,
 * the nearest name if close enough to be a typo, for the "did you mean" every unknown-agent message
 * carries. Built once per set of names, so a long batch file looks each task up in constant time.
 */
export class AgentNames {
  private readonly byKey = new Map<string, string>();

  constructor(names: Iterable<string>) {
    for (const name of names) if (!this.byKey.has(agentKey(name))) this.byKey.set(agentKey(name), name);
  }

  /** Every name as written, sorted. */
  all(): string[] {
    return [...this.byKey.values()].sort();
  }

  /** Looks `name` up (any case). */
  lookup(name: string): AgentLookup {
    const found = this.byKey.get(agentKey(name));
    return found !== undefined ? { found } : { hint: closest(name, this.all()) };
  }
}

/** Looks `name` up among `names` (AgentNames.lookup, for a list used once). */
function lookupAgent(name: string, names: Iterable<string>): AgentLookup {
  return new AgentNames(names).lookup(name);
}

/**
 * Why a `Task(a, b)` grant does not cover a launch of `type`, or undefined when it does: the one
 * check the host's grant and the worker's Task tool both make.
 */
export function outsideTaskTypes(taskTypes: readonly string[], type: string): string | undefined {
  const inGrant = lookupAgent(type, taskTypes);
  if (inGrant.found !== undefined) return undefined;
  const hint = inGrant.hint ? `; did you mean "${inGrant.hint}"?` : '';
  return `this agent may only launch: ${taskTypes.join(', ')} (asked for "${type}"${hint})`;
}
