// Agent names as Claude Code's files write them (`code-reviewer`, `powershell-5.1-expert`,
// `Data_Scientist`): shown as written, looked up case-insensitively. What a name may not hold is
// what would break a place it is used: `:` and `/` (`Task(a, b)` lists, rule specifiers, paths),
// `\`, spaces, and a leading `-` (a flag).

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
