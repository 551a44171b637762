// The Edit tool: exact string replacement in a file this run has read, refusing missing,
// ambiguous or no-op replacements and files changed since they were read.
import { EditInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import { numberLines, splitLines } from './number-lines.js';
import { checkReadBeforeChange } from './read-guard.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput, toolError, toolText } from './tool.js';

/** Lines of context shown around the edited region in the result. */
const SNIPPET_CONTEXT = 4;

const DESCRIPTION = `Performs an exact string replacement in a file.

Usage:
- You must Read the file in this run before editing it; an edit of an unread file, or of a file that changed since you read it, is refused.
- old_string must match the file exactly, including whitespace and indentation. When you copy text from Read output, copy only what follows the line number and tab: the number prefix is not part of the file.
- The edit fails if old_string is not found, or if it occurs more than once: then include more surrounding lines to make it unique, or set replace_all to change every occurrence (useful for renaming a variable).
- old_string and new_string must differ.
- An empty old_string creates a new file with new_string as its content (only when the file does not exist).
- Prefer editing existing files to creating new ones. Edits may need approval, depending on the permission mode.`;

/** Non-overlapping occurrences of `needle` in `haystack`, by start index. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

/** Lines of `content` around the region [start, start + length), numbered as Read numbers them. */
function snippet(content: string, start: number, length: number): string {
  const firstLine = content.slice(0, start).split('\n').length;
  const lastLine = firstLine + content.slice(start, start + length).split('\n').length - 1;
  const lines = splitLines(content);
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, lastLine + SNIPPET_CONTEXT);
  return numberLines(lines.slice(from - 1, to), from);
}

/** Where `oldString` stands in `content`, with the strings aligned to the file's line endings. */
interface Match {
  found: number[];
  oldString: string;
  newString: string;
}

/** Finds `oldString` in `content`, or the error result that says why the edit cannot go ahead. */
function locate(
  content: string,
  filePath: string,
  edit: { oldString: string; newString: string; replaceAll: boolean },
): Match | ToolResult {
  let { oldString, newString } = edit;
  let found = occurrences(content, oldString);
  // A model usually writes \n; a CRLF file still matches once the line endings are aligned.
  if (
    found.length === 0 &&
    content.includes('\r\n') &&
    oldString.includes('\n') &&
    !oldString.includes('\r')
  ) {
    oldString = oldString.replace(/\n/g, '\r\n');
    newString = newString.replace(/\r?\n/g, '\r\n');
    found = occurrences(content, oldString);
  }
  if (found.length === 0) {
    const hint = /^\s*\d+\t/m.test(oldString)
      ? ' old_string seems to include line-number prefixes from Read output; remove them.'
      : ' Read the file again and copy the text exactly, including whitespace and indentation.';
    return toolError(`not_found: old_string was not found in ${filePath}.${hint}`);
  }
  if (found.length > 1 && !edit.replaceAll) {
    return toolError(
      `invalid_input: old_string matches ${found.length} places in ${filePath}. Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence.`,
    );
  }
  return { found: edit.replaceAll ? found : found.slice(0, 1), oldString, newString };
}

/** `content` with the matched occurrences replaced. */
function replaceAt(content: string, match: Match): string {
  let updated = '';
  let cursor = 0;
  for (const at of match.found) {
    updated += content.slice(cursor, at) + match.newString;
    cursor = at + match.oldString.length;
  }
  return updated + content.slice(cursor);
}

/** An empty old_string on a missing file: create it. */
async function createFile(
  ctx: ToolContext,
  filePath: string,
  content: string,
  key: string,
): Promise<ToolResult> {
  const created = await callCapability(ctx, 'fs.write', { path: filePath, content });
  if (!created.ok) return capabilityFailure(created.error);
  ctx.readState.set(key, { mtimeMs: created.value.mtimeMs });
  return toolText(`Created ${filePath} (${created.value.bytes} bytes).`);
}

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('Edit', EditInput, input);
  if (!parsed.ok) return parsed.result;
  const { file_path: filePath, replace_all: replaceAll = false } = parsed.data;
  const { old_string: oldString, new_string: newString } = parsed.data;
  if (oldString === newString) {
    return toolError(
      'invalid_input: old_string and new_string are identical, so there is nothing to change.',
    );
  }
  const guard = await checkReadBeforeChange(ctx, filePath);
  if (!guard.ok) return guard.result;

  if (guard.readMtimeMs === undefined) {
    if (oldString !== '') {
      return toolError(
        `not_found: ${filePath} does not exist. Use an empty old_string to create it, or Write.`,
      );
    }
    return createFile(ctx, filePath, newString, guard.key);
  }
  if (oldString === '') {
    return toolError(
      `invalid_input: old_string is empty, which only creates new files, and ${filePath} already exists. Give the exact text to replace.`,
    );
  }

  // No offset/limit: the host returns the whole file, or `too_large` past its read cap.
  const read = await callCapability(ctx, 'fs.read', { path: filePath });
  if (!read.ok && read.error.code !== 'too_large') return capabilityFailure(read.error);
  const file = read.ok ? read.value : undefined;
  if (!file || file.truncated) {
    return toolError(
      `too_large: ${filePath} is too large to edit in one piece (${guard.stat.size} bytes). Use Bash or Write.`,
    );
  }
  if (file.mtimeMs > guard.readMtimeMs) {
    return toolError(
      `stale_file: ${filePath} has been modified since it was read. Read it again before editing it.`,
    );
  }
  const match = locate(file.content, filePath, { oldString, newString, replaceAll });
  if (!('found' in match)) return match;
  const updated = replaceAt(file.content, match);

  const written = await callCapability(ctx, 'fs.write', {
    path: filePath,
    content: updated,
    expectedMtimeMs: file.mtimeMs,
  });
  if (!written.ok) return capabilityFailure(written.error);
  ctx.readState.set(guard.key, { mtimeMs: written.value.mtimeMs });

  const first = match.found[0] ?? 0;
  const summary =
    match.found.length > 1
      ? `The file ${filePath} has been updated: all ${match.found.length} occurrences replaced. The first one now reads (cat -n):`
      : `The file ${filePath} has been updated. The edited region now reads (cat -n):`;
  return toolText(`${summary}\n${snippet(updated, first, match.newString.length)}`);
}

/** The Edit tool. */
export const editTool: Tool = defineTool({
  name: 'Edit',
  description: DESCRIPTION,
  input: EditInput,
  descriptions: {
    file_path: 'Path of the file to edit, absolute or relative to the project directory.',
    old_string: 'The exact text to replace (must occur exactly once unless replace_all is true).',
    new_string: 'The text to replace it with (must differ from old_string).',
    replace_all: 'Replace every occurrence of old_string (default false).',
  },
  run,
});
