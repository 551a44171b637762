// Deletes transcripts older than a given age, by modification time (a transcript is appended to
// for as long as its run lives, so a recent mtime means recent activity).
import { readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../shared/errors.js';

/** What pruning did. `removed` are full paths. */
export interface PruneResult {
  removed: string[];
  kept: number;
}

/** Options for `pruneTranscripts`. */
export interface PruneOptions {
  /** "Now", epoch ms (default Date.now()). */
  now?: number;
  /** Report what would be removed without removing it. */
  dryRun?: boolean;
}

/**
 * Removes `<dir>/*.jsonl` files last modified more than `olderThanMs` ago. A missing directory has
 * nothing to prune. Other files are left alone.
 */
export async function pruneTranscripts(
  dir: string,
  olderThanMs: number,
  options: PruneOptions = {},
): Promise<PruneResult> {
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new CadreError(
      'invalid_input',
      `the age must be a non-negative number of milliseconds, not ${olderThanMs}`,
    );
  }
  const cutoff = (options.now ?? Date.now()) - olderThanMs;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { removed: [], kept: 0 };
    throw new CadreError('io_error', `cannot list ${dir}: ${(error as Error).message}`);
  }
  const result: PruneResult = { removed: [], kept: 0 };
  for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) continue;
    if (info.mtimeMs >= cutoff) {
      result.kept++;
      continue;
    }
    if (!options.dryRun) {
      try {
        await unlink(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new CadreError('io_error', `cannot remove ${file}: ${(error as Error).message}`);
      }
    }
    result.removed.push(file);
  }
  return result;
}
