// The built-in tool names as plain data. The zod schema (ToolName, in tools.ts) is built from this
// list; the policy's rule parser reads it directly, so the host's I/O threads, which run the policy
// function, load no zod.

/** Every built-in tool name. */
export const TOOL_NAMES = [
  'Read',
  'Write',
  'Edit',
  'Glob',
  'Grep',
  'LS',
  'Bash',
  'Task',
  'TaskOutput',
  'TaskStop',
  'TodoWrite',
  'TodoRead',
  'WebFetch',
  'WebSearch',
] as const;
