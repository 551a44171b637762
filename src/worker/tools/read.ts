// The Read tool: a text file (or a window of it) with `cat -n` line numbers, remembered in the
// run's read state so that Write and Edit can later tell a read file from a blind overwrite.
import { ReadInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import { numberLines, splitLines } from './number-lines.js';
import { resolvePath } from './paths.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput, toolText } from './tool.js';

/** Lines returned when the model gives no `limit`. */
const DEFAULT_READ_LINES = 2_000;

const DESCRIPTION = `Reads a text file from the project and returns its lines numbered like \`cat -n\`.

Usage:
- file_path may be absolute or relative to the project directory.
- By default it reads up to ${DEFAULT_READ_LINES} lines from the start of the file. For long files, give offset (1-based first line) and limit (number of lines); otherwise prefer reading the whole file.
- Lines longer than 2000 characters are cut.
- Each output line is: line number, a tab, then the line exactly as in the file. The number and tab are not part of the file: never copy them into Edit's old_string.
- Binary files and directories cannot be read (use LS for directories). Reading an empty file returns a notice.
- Read a file before you change it: Edit and overwriting with Write are refused for files not read in this run.
- Reading several files that may be useful in one response, as parallel calls, is faster than one at a time.`;

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('Read', ReadInput, input);
  if (!parsed.ok) return parsed.result;
  const { file_path: filePath, offset, limit } = parsed.data;
  const envelope = await callCapability(ctx, 'fs.read', {
    path: filePath,
    offset: offset ?? 1,
    limit: limit ?? DEFAULT_READ_LINES,
  });
  if (!envelope.ok) return capabilityFailure(envelope.error);
  const file = envelope.value;
  ctx.readState.set(resolvePath(ctx.cwd, filePath), { mtimeMs: file.mtimeMs });

  if (file.totalLines === 0 || (file.size === 0 && file.content === '')) {
    return toolText(`The file ${filePath} exists but is empty.`);
  }
  if (file.startLine > file.totalLines) {
    return toolText(
      `The file ${filePath} has ${file.totalLines} lines; offset ${file.startLine} is past the end. Use a smaller offset.`,
    );
  }
  // A file of blank lines still shows its numbered (empty) lines.
  const lines = splitLines(file.content);
  if (lines.length === 0) lines.push('');
  const last = file.startLine + lines.length - 1;
  let text = numberLines(lines, file.startLine);
  if (file.startLine > 1 || last < file.totalLines || file.truncated) {
    text += `\n\n[Showing lines ${file.startLine}-${last} of ${file.totalLines}. Use offset and limit to read other parts.]`;
  }
  return toolText(text);
}

/** The Read tool. */
export const readTool: Tool = defineTool({
  name: 'Read',
  description: DESCRIPTION,
  input: ReadInput,
  descriptions: {
    file_path: 'Path of the file to read, absolute or relative to the project directory.',
    offset: 'The 1-based line number to start reading from. Only give it for files too long to read at once.',
    limit: `The number of lines to read (default ${DEFAULT_READ_LINES}). Only give it for files too long to read at once.`,
  },
  run,
});
