// Claude Code's tool names, as agent files written for Claude Code use them: the ones cadre maps to
// a tool of its own, and the ones cadre does not provide. A name in neither table is a tool nowhere.
// Plain data (no zod): the policy's rule parser reads it on the host's I/O threads.

/** Claude Code names that are one of cadre's tools under another name (never a wider one). */
export const CLAUDE_CODE_EQUIVALENTS: Readonly<Record<string, string>> = {
  // MultiEdit is a batch of Edits to one file: exactly what Edit may do.
  MultiEdit: 'Edit',
  // Claude Code's current name for Task.
  Agent: 'Task',
};

/**
 * Claude Code tools cadre does not provide. An agent file naming one loads without it (a warning
 * names it): dropping a tool only ever narrows what the agent may do.
 */
export const CLAUDE_CODE_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'Artifact',
  'AskUserQuestion',
  'BashOutput',
  'CronCreate',
  'CronDelete',
  'CronList',
  'EnterPlanMode',
  'EnterWorktree',
  'ExitPlanMode',
  'ExitWorktree',
  'KillBash',
  'KillShell',
  'ListMcpResourcesTool',
  'LSP',
  'Monitor',
  'NotebookEdit',
  'NotebookRead',
  'PowerShell',
  'ReadMcpResourceTool',
  'SendMessage',
  'Skill',
  'SlashCommand',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskUpdate',
  'TeamCreate',
  'TeamDelete',
  'ToolSearch',
]);

/** The warning text for a Claude Code tool cadre does not provide. */
export function notProvidedMessage(name: string): string {
  return `ignored: ${name} is a Claude Code tool cadre does not provide`;
}
