// The built-in file and shell tools by name. Which of them a run offers, next to its delegation,
// MCP and agent tools, is `tool-set.ts`'s job; how a call becomes a result is `loop/tool-call.ts`'s.
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { lsTool } from './ls.js';
import { readTool } from './read.js';
import { webFetchTool } from './web-fetch.js';
import type { Tool } from './tool.js';
import { writeTool } from './write.js';

/** The file and shell tools this directory implements. */
export const BUILTIN_TOOLS: Readonly<Record<string, Tool>> = {
  Read: readTool,
  Write: writeTool,
  Edit: editTool,
  Glob: globTool,
  Grep: grepTool,
  LS: lsTool,
  Bash: bashTool,
  WebFetch: webFetchTool,
};

/** The built-in tool called `name`, if there is one (never an inherited property). */
export function builtinTool(name: string): Tool | undefined {
  return Object.hasOwn(BUILTIN_TOOLS, name) ? BUILTIN_TOOLS[name] : undefined;
}
