// The Glob tool: find files by name pattern through the host's gitignore-aware fs.glob.
import { GlobInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput, toolText } from './tool.js';

/** Most paths one Glob call returns: beyond this the model should narrow the pattern. */
export const GLOB_RESULT_LIMIT = 100;

const DESCRIPTION = `Fast file pattern matching that works with any codebase size.

Usage:
- Supports glob patterns like "**/*.js" or "src/**/*.ts"; the pattern is relative to path (default: the project directory).
- Returns matching file paths (relative to the project directory), most recently modified first. Files ignored by .gitignore are skipped.
- At most ${GLOB_RESULT_LIMIT} paths are returned; a notice says when there were more. Narrow the pattern or path then.
- Use it to find files by name. To search file contents use Grep. For an open-ended search that may take several rounds of globbing and grepping, delegate to a subagent with Task if you have it.
- Several searches that may be useful can be sent in one response as parallel calls.`;

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('Glob', GlobInput, input);
  if (!parsed.ok) return parsed.result;
  const { pattern, path } = parsed.data;
  const envelope = await callCapability(
    ctx,
    'fs.glob',
    path === undefined ? { pattern, limit: GLOB_RESULT_LIMIT } : { pattern, path, limit: GLOB_RESULT_LIMIT },
  );
  if (!envelope.ok) return capabilityFailure(envelope.error);
  const { files, truncated, notices = [] } = envelope.value;
  const said = notices.map((n) => `\n(${n})`).join('');
  if (files.length === 0) return toolText(`No files found${said}`);
  const notice = truncated
    ? `\n(Results are truncated to the first ${files.length}. Use a more specific path or pattern.)`
    : '';
  return toolText(files.join('\n') + notice + said);
}

/** The Glob tool. */
export const globTool: Tool = defineTool({
  name: 'Glob',
  description: DESCRIPTION,
  input: GlobInput,
  descriptions: {
    pattern: 'The glob pattern to match files against, e.g. "**/*.ts".',
    path: 'The directory to search in, absolute or relative to the project directory. Omit it to search the whole project.',
  },
  run,
});
