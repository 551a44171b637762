// The rule Write and Edit share: an existing file may be changed only if this run has read it
// and nobody has changed it since. It keeps a model from overwriting work it has never seen.
import type { FsStatResult } from '../../shared/capabilities.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import { resolvePath } from './paths.js';
import type { ToolContext, ToolResult } from './tool.js';
import { toolError } from './tool.js';

/** The file's current state and, when it exists, the mtime this run saw when it read it. */
export type GuardVerdict =
  | { ok: true; key: string; stat: FsStatResult; readMtimeMs: number | undefined }
  | { ok: false; result: ToolResult };

/**
 * Stats `filePath` and checks the read rule. A missing file passes (`readMtimeMs` undefined);
 * a directory, an unread file or a file modified since its read fails with a result for the model.
 */
export async function checkReadBeforeChange(ctx: ToolContext, filePath: string): Promise<GuardVerdict> {
  const key = resolvePath(ctx.cwd, filePath);
  const envelope = await callCapability(ctx, 'fs.stat', { path: filePath });
  if (!envelope.ok) return { ok: false, result: capabilityFailure(envelope.error) };
  const stat = envelope.value;
  if (!stat.exists || stat.type === 'missing') return { ok: true, key, stat, readMtimeMs: undefined };
  if (stat.type !== 'file') {
    return { ok: false, result: toolError(`invalid_input: ${filePath} is a ${stat.type}, not a file.`) };
  }
  const seen = ctx.readState.get(key);
  if (seen === undefined) {
    return {
      ok: false,
      result: toolError(
        `forbidden_operation: ${filePath} has not been read in this run. Read it first, then change it.`,
      ),
    };
  }
  if (stat.mtimeMs > seen.mtimeMs) {
    return {
      ok: false,
      result: toolError(
        `stale_file: ${filePath} has been modified since it was read (by the user, a linter or a command). Read it again before changing it.`,
      ),
    };
  }
  return { ok: true, key, stat, readMtimeMs: seen.mtimeMs };
}
