// Writes a whole file atomically: the new content goes to a temp file in the same directory and
// is renamed over the target, so a reader (or a crash) sees the old file or the new one, never half.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { FsWriteResult } from '../../../shared/capabilities.js';
import { CadreError } from '../../../shared/errors.js';
import { errnoOf, fsError } from './errors.js';
import { assertOpened, openCheck, underFd, type OpenCheck } from './pin.js';

/** Options of `writeAtomic`. */
export interface WriteAtomicOptions {
  /** Refuse with `stale_file` unless the file's mtime is exactly this (it changed since it was read). */
  expectedMtimeMs?: number;
  /** How opened directories and files are checked (pin.ts; default: as probed). */
  openCheck?: OpenCheck;
}

async function existing(at: string, real: string): Promise<{ mode: number; mtimeMs: number } | undefined> {
  try {
    const st = await stat(at);
    if (st.isDirectory())
      throw new CadreError('invalid_input', `${real} is a directory; it cannot be written as a file`, {
        path: real,
      });
    return { mode: st.mode & 0o7777, mtimeMs: st.mtimeMs };
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw fsError(error, real);
  }
}

/**
 * Writes `content` (UTF-8) to `real`, an already-checked real path. Creates missing parent
 * directories, keeps an existing file's mode, and leaves no temp file behind on failure. Not
 * fsync'd: atomic for readers, not durable across a power cut, which an agent's edit does not need.
 */
export async function writeAtomic(
  real: string,
  content: string,
  options: WriteAtomicOptions = {},
): Promise<FsWriteResult> {
  const dir = path.dirname(real);
  const mode = options.openCheck ?? openCheck();
  await makeDirs(dir, mode);
  // Everything below goes through the opened directory, so a directory swapped for a symlink after
  // the permission check cannot redirect the write.
  let dirHandle;
  try {
    dirHandle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw fsError(error, dir);
  }
  try {
    await assertOpened(dirHandle.fd, dir, mode);
    return await writeIn(dirHandle.fd, dir, real, content, options, mode);
  } finally {
    await dirHandle.close();
  }
}

/**
 * Creates the missing directories of `dir` (a checked real path) one level at a time, each inside
 * the directory opened before it: a directory swapped for a symlink after the check makes this
 * fail instead of creating directories wherever the link leads (as `mkdir -p` would).
 */
async function makeDirs(dir: string, mode: OpenCheck): Promise<void> {
  const missing: string[] = [];
  let base = dir;
  for (;;) {
    const st = await lstat(base).catch((error: unknown) => {
      if (errnoOf(error) === 'ENOENT') return undefined;
      throw fsError(error, base);
    });
    if (st) break;
    const up = path.dirname(base);
    if (up === base) break;
    missing.unshift(path.basename(base));
    base = up;
  }
  if (missing.length === 0) return;
  let handle;
  try {
    handle = await open(base, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw fsError(error, base);
  }
  let at = base;
  try {
    await assertOpened(handle.fd, base, mode);
    for (const name of missing) {
      const child = underFd(handle.fd, at, name, mode);
      await mkdir(child).catch((error: unknown) => {
        if (errnoOf(error) !== 'EEXIST') throw fsError(error, path.join(at, name));
      });
      // O_NOFOLLOW: a symlink planted under the new name is refused, not followed.
      const next = await open(child, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(
        (error: unknown) => {
          throw errnoOf(error) === 'ELOOP' || errnoOf(error) === 'ENOTDIR'
            ? new CadreError(
                'permission_denied',
                `${path.join(at, name)} changed between the permission check and the write (it is no longer a directory); refused`,
                { path: path.join(at, name) },
              )
            : fsError(error, path.join(at, name));
        },
      );
      await handle.close();
      handle = next;
      at = path.join(at, name);
      // Through the descriptor ('proc' mode) this holds already; by plain path ('stat' mode) it is the check.
      await assertOpened(handle.fd, at, mode);
    }
  } finally {
    await handle.close();
  }
}

async function writeIn(
  dirFd: number,
  dir: string,
  real: string,
  content: string,
  options: WriteAtomicOptions,
  mode: OpenCheck,
): Promise<FsWriteResult> {
  const target = underFd(dirFd, dir, path.basename(real), mode);
  const before = await existing(target, real);
  if (options.expectedMtimeMs !== undefined && before?.mtimeMs !== options.expectedMtimeMs) {
    throw new CadreError(
      'stale_file',
      before
        ? `${real} was modified since it was read; read it again before writing`
        : `${real} was deleted since it was read; read or create it again before writing`,
      { path: real, expectedMtimeMs: options.expectedMtimeMs, actualMtimeMs: before?.mtimeMs ?? null },
    );
  }
  const tempName = `.${path.basename(real)}.cadre-${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  const temp = underFd(dirFd, dir, tempName, mode);
  const data = Buffer.from(content, 'utf8');
  try {
    const handle = await open(temp, 'wx', before?.mode ?? 0o666);
    try {
      // Nothing is written until the new file is known to be in the checked directory (in 'stat'
      // mode the plain path could have led elsewhere).
      await assertOpened(handle.fd, path.join(dir, tempName), mode);
      await handle.writeFile(data);
      // open()'s mode is filtered by the umask; an existing file's mode must survive exactly.
      if (before) await handle.chmod(before.mode);
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw fsError(error, real);
  }
  const after = await stat(target).catch(() => undefined);
  return {
    path: real,
    bytes: data.length,
    created: before === undefined,
    mtimeMs: after?.mtimeMs ?? Date.now(),
  };
}
