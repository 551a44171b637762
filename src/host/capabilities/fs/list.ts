// Lists one directory for the LS tool: sorted by name, filtered by ignore globs, capped.
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { FsListResult } from '../../../shared/capabilities.js';
import { CadreError } from '../../../shared/errors.js';
import { globToRegExp } from '../../../shared/glob.js';
import { mapLimit } from './concurrency.js';
import { errnoOf, fsError } from './errors.js';

/** Default cap on listed entries. */
export const DEFAULT_LIST_LIMIT = 1000;

type Entry = FsListResult['entries'][number];

/**
 * Lists `real` (an already-checked real directory). `ignore` globs are matched against each entry's
 * name (dotfiles included). Symlinks are reported as `symlink`, never followed. Errors: `not_found`,
 * `invalid_input` when `real` is a file, `invalid_input` for a malformed glob.
 */
export async function list(
  real: string,
  ignore: readonly string[] = [],
  limit = DEFAULT_LIST_LIMIT,
): Promise<FsListResult> {
  let matchers: RegExp[];
  try {
    matchers = ignore.map((glob) => globToRegExp(glob, { dot: true }));
  } catch (error) {
    throw new CadreError('invalid_input', `bad ignore glob: ${(error as Error).message}`);
  }
  let dirents;
  try {
    dirents = await readdir(real, { withFileTypes: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOTDIR')
      throw new CadreError('invalid_input', `${real} is not a directory; use Read for files`, { path: real });
    throw fsError(error, real);
  }
  const kept = dirents
    .filter((d) => !matchers.some((m) => m.test(d.name)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const shown = kept.slice(0, limit);
  const entries = await mapLimit(shown, 32, async (d): Promise<Entry> => {
    const type: Entry['type'] = d.isFile()
      ? 'file'
      : d.isDirectory()
        ? 'directory'
        : d.isSymbolicLink()
          ? 'symlink'
          : 'other';
    if (type !== 'file') return { name: d.name, type, size: 0 };
    // The entry may vanish between readdir and lstat; it is still listed, with size 0.
    const st = await lstat(path.join(real, d.name)).catch(() => undefined);
    return { name: d.name, type, size: st?.size ?? 0 };
  });
  return { path: real, entries, truncated: kept.length > shown.length };
}
