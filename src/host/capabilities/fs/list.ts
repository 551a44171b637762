// Lists one directory for the LS tool: sorted by name, filtered by ignore globs, capped. The
// directory is opened and checked to be the one the policy allowed (pin.ts), and listed through that
// descriptor: one swapped for a symlink after the check is refused, never listed.
import { constants, type Dirent } from 'node:fs';
import { lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import type { FsListResult } from '../../../shared/capabilities.js';
import { CadreError } from '../../../shared/errors.js';
import { globToRegExp } from '../../../shared/glob.js';
import { mapLimit } from './concurrency.js';
import { errnoOf, fsError } from './errors.js';
import { assertOpened, openCheck, underFd, type OpenCheck } from './pin.js';

/** Default cap on listed entries. */
const DEFAULT_LIST_LIMIT = 1000;

type Entry = FsListResult['entries'][number];

/**
 * Lists `real` (an already-checked real directory). `ignore` globs are matched against each entry's
 * name (dotfiles included); entries that are `hidden` paths (cadre's records) are left out. Symlinks are reported as `symlink`, never followed. Errors: `not_found`,
 * `invalid_input` when `real` is a file, `invalid_input` for a malformed glob.
 */
export async function list(
  real: string,
  ignore: readonly string[] = [],
  limit = DEFAULT_LIST_LIMIT,
  hidden: readonly string[] = [],
  mode: OpenCheck = openCheck(),
): Promise<FsListResult> {
  let matchers: RegExp[];
  try {
    matchers = ignore.map((glob) => globToRegExp(glob, { dot: true }));
  } catch (error) {
    throw new CadreError('invalid_input', `bad ignore glob: ${(error as Error).message}`);
  }
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NONBLOCK);
  } catch (error) {
    if (errnoOf(error) === 'ENOTDIR')
      throw new CadreError('invalid_input', `${real} is not a directory; use Read for files`, { path: real });
    throw fsError(error, real);
  }
  try {
    return await listOpened(handle.fd, real, matchers, limit, hidden, mode);
  } finally {
    await handle.close();
  }
}

async function listOpened(
  fd: number,
  real: string,
  matchers: readonly RegExp[],
  limit: number,
  hidden: readonly string[],
  mode: OpenCheck,
): Promise<FsListResult> {
  await assertOpened(fd, real, mode);
  let dirents: Dirent[];
  try {
    dirents = await readdir(underFd(fd, real, '', mode), { withFileTypes: true });
  } catch (error) {
    throw fsError(error, real);
  }
  // Listed by plain path ('stat' mode): the path must still lead to what was opened.
  if (mode === 'stat') await assertOpened(fd, real, mode);
  // cadre's own records are never listed (compared case-insensitively, as the policy does).
  const lowerHidden = hidden.map((h) => h.toLowerCase());
  const prefix = real === '/' ? '/' : `${real}/`;
  const kept = dirents
    .filter((d) => !lowerHidden.includes(`${prefix}${d.name}`.toLowerCase()))
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
    const st = await lstat(underFd(fd, real, d.name, mode)).catch(() => undefined);
    return { name: d.name, type, size: st?.size ?? 0 };
  });
  return { path: real, entries, truncated: kept.length > shown.length };
}
