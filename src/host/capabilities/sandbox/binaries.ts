// Where the sandbox's own programs come from: fixed system directories, or an absolute path the
// user's config names. Never PATH and never the project: a `node_modules/.bin/bwrap` planted by an
// earlier command, or a `bwrap` earlier on PATH, must not decide what isolates the next command.
import { constants } from 'node:fs';
import { access, lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** System directories searched, in order. Each must be owned by root and not writable by others. */
export const SYSTEM_BIN_DIRS: readonly string[] = [
  '/usr/bin',
  '/bin',
  '/usr/sbin',
  '/sbin',
  '/usr/local/bin',
];

/** Whether an executable may be trusted, and if not, why. */
export type TrustVerdict = { ok: true; path: string } | { ok: false; reason: string };

/** True when a file's owner and mode keep anyone but root (or the current user) from changing it. */
function safeOwnerAndMode(st: { uid: number; mode: number }, uid: number): boolean {
  const ownerOk = st.uid === 0 || st.uid === uid;
  // Group- or world-writable: someone else could replace what runs. A sticky directory (/tmp)
  // still lets others create names in it, so it does not count as safe either.
  return ownerOk && (st.mode & 0o022) === 0;
}

/**
 * Checks that `file` is an absolute path to an executable regular file that only root or the
 * current user can change, in directories only they can change. Symbolic links are followed (a
 * system `/bin` is often a link) and the real file and its directories are checked.
 */
export async function trustExecutable(file: string, uid = process.getuid?.() ?? 0): Promise<TrustVerdict> {
  if (!path.isAbsolute(file)) return { ok: false, reason: `${file} is not an absolute path` };
  const real = await realpath(file).catch(() => undefined);
  if (real === undefined) return { ok: false, reason: `${file} does not exist` };
  const st = await stat(real).catch(() => undefined);
  if (!st?.isFile()) return { ok: false, reason: `${file} is not a regular file` };
  if (
    !(await access(real, constants.X_OK).then(
      () => true,
      () => false,
    ))
  )
    return { ok: false, reason: `${file} is not executable` };
  if (!safeOwnerAndMode(st, uid))
    return {
      ok: false,
      reason: `${real} can be changed by other users (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)})`,
    };
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    const d = await lstat(dir).catch(() => undefined);
    if (d === undefined || !safeOwnerAndMode(d, uid))
      return { ok: false, reason: `${dir}, a directory holding ${real}, can be changed by other users` };
    if (dir === '/') break;
  }
  return { ok: true, path: real };
}

/** The first trusted `name` in the fixed system directories, with the path as found (not resolved). */
export async function systemBinary(name: string): Promise<string | undefined> {
  for (const dir of SYSTEM_BIN_DIRS) {
    const candidate = path.join(dir, name);
    const verdict = await trustExecutable(candidate);
    if (verdict.ok) return candidate;
  }
  return undefined;
}
