// What a trust record binds besides a server's configuration: the project files its command line
// names. `"command": "node", "args": ["mcp/server.mjs"]` as written stays the same when a model (in
// acceptEdits, or by a command) rewrites `mcp/server.mjs`, and the next run would start the model's
// code outside the command sandbox, with the network. So each word of the command line that names
// a path in the project counts by what is there (a file by its content), and a change to it needs
// trusting again. Modules such a program loads are not followed: see docs/mcp.md.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, realpathSync, constants } from 'node:fs';
import path from 'node:path';
import type { McpServerConfig } from '../../../shared/mcp-config.js';
import { isUnder } from '../policy/path-match.js';

/** Files larger than this count by size and change time instead of content. */
const HASH_BYTES = 16 * 1024 * 1024;

/** What is at `file` now: a content hash for a regular file, else its kind. Never throws. */
function stateOf(file: string, projectDir: string): string {
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch {
    return 'missing';
  }
  if (!isUnder(real, projectDir)) return `outside:${real}`;
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a FIFO by that name must not hang a trust check.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return stat.isDirectory() ? 'dir' : 'special';
    if (stat.size > HASH_BYTES) return `large:${stat.size}:${stat.mtimeMs}`;
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
    return hash.digest('hex');
  } catch {
    return 'unreadable';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The state of every project path a stdio server's command line names (the command and each
 * argument, relative to the server's directory), as text for the trust hash; empty for a remote
 * server. Words that name no existing path count as `missing`, so they change nothing until a file
 * by that name appears.
 */
export function programState(config: McpServerConfig, projectDir: string): string {
  if (config.type !== 'stdio') return '';
  const cwd = path.resolve(projectDir, config.cwd ?? '.');
  const parts: string[] = [];
  for (const word of [config.command, ...(config.args ?? [])]) {
    // A bare program name is looked up on PATH, not in the project; a flag is no path.
    if (word === '' || word.startsWith('-') || word.includes('\0')) continue;
    if (word === config.command && !word.includes('/')) continue;
    const file = path.resolve(cwd, word);
    if (!isUnder(file, projectDir)) continue;
    parts.push(`${JSON.stringify(word)}=${stateOf(file, projectDir)}`);
  }
  return parts.join('\n');
}
