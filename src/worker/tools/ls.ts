// The LS tool: one directory's entries, directories marked with a trailing slash.
import { LSInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput, toolText } from './tool.js';

const DESCRIPTION = `Lists the files and directories in one directory.

Usage:
- path may be absolute or relative to the project directory ("." is the project itself).
- ignore takes glob patterns of names to leave out, e.g. ["node_modules", "*.log"].
- Directories end with "/"; symbolic links are marked. Files show their size in bytes.
- To find files by name across a tree prefer Glob; to search contents prefer Grep.`;

const MARK: Record<string, string> = { directory: '/', symlink: '@', file: '', other: '' };

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('LS', LSInput, input);
  if (!parsed.ok) return parsed.result;
  const { path, ignore } = parsed.data;
  const envelope = await callCapability(ctx, 'fs.list', ignore === undefined ? { path } : { path, ignore });
  if (!envelope.ok) return capabilityFailure(envelope.error);
  const listing = envelope.value;
  const root = listing.path.endsWith('/') ? listing.path : `${listing.path}/`;
  if (listing.entries.length === 0) return toolText(`- ${root}\n  (empty directory)`);
  // Directories first (a tree reads more easily that way); the sort is stable, so the host's
  // name order holds within each group.
  const entries = [...listing.entries].sort(
    (a, b) => Number(b.type === 'directory') - Number(a.type === 'directory'),
  );
  const lines = entries.map((entry) => {
    const size = entry.type === 'file' ? ` (${entry.size} bytes)` : '';
    return `  - ${entry.name}${MARK[entry.type] ?? ''}${size}`;
  });
  const notice = listing.truncated
    ? '\n(Listing truncated: the directory has more entries. Use Glob to narrow it.)'
    : '';
  return toolText(`- ${root}\n${lines.join('\n')}${notice}`);
}

/** The LS tool. */
export const lsTool: Tool = defineTool({
  name: 'LS',
  description: DESCRIPTION,
  input: LSInput,
  descriptions: {
    path: 'The directory to list, absolute or relative to the project directory.',
    ignore: 'Glob patterns of entry names to leave out.',
  },
  run,
});
