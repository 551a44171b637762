// The Write tool: create a file, or replace one this run has read and that has not changed since.
import { WriteInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import { checkReadBeforeChange } from './read-guard.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput, toolText } from './tool.js';

const DESCRIPTION = `Writes a whole file to the project, creating parent directories as needed.

Usage:
- file_path may be absolute or relative to the project directory.
- Creating a new file needs nothing else. Overwriting an existing file is refused unless you have read it with Read in this run and it has not changed since.
- Prefer Edit for changing part of an existing file: it sends only the difference.
- Do not create files (documentation, READMEs, notes) unless the task asks for them.
- Writes may need approval, depending on the permission mode; a refusal says which mode or rule would allow it.`;

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('Write', WriteInput, input);
  if (!parsed.ok) return parsed.result;
  const { file_path: filePath, content } = parsed.data;
  const guard = await checkReadBeforeChange(ctx, filePath);
  if (!guard.ok) return guard.result;

  const envelope = await callCapability(
    ctx,
    'fs.write',
    guard.readMtimeMs === undefined
      ? { path: filePath, content }
      : { path: filePath, content, expectedMtimeMs: guard.readMtimeMs },
  );
  if (!envelope.ok) return capabilityFailure(envelope.error);
  const written = envelope.value;
  // What this run wrote it has, in effect, read: a following Edit needs no extra Read.
  ctx.readState.set(guard.key, { mtimeMs: written.mtimeMs });
  return toolText(
    written.created
      ? `File created successfully at ${filePath} (${written.bytes} bytes).`
      : `File ${filePath} has been overwritten (${written.bytes} bytes).`,
  );
}

/** The Write tool. */
export const writeTool: Tool = defineTool({
  name: 'Write',
  description: DESCRIPTION,
  input: WriteInput,
  descriptions: {
    file_path: 'Path of the file to write, absolute or relative to the project directory.',
    content: 'The complete new content of the file.',
  },
  run,
});
