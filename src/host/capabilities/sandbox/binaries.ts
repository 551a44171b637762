// Where the sandbox's own programs come from: fixed system directories, or an absolute path the
// user's config names. Never PATH and never the project: a `node_modules/.bin/bwrap` planted by an
// earlier command, or a `bwrap` earlier on PATH, must not decide what isolates the next command.
import { constants, readFileSync } from 'node:fs';
import { access, lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** System directories searched, in order. Each must be owned by root and not writable by others. */
const SYSTEM_BIN_DIRS: readonly string[] = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

/** Whether an executable may be trusted, and if not, why. */
export type TrustVerdict = { ok: true; path: string } | { ok: false; reason: string };

/**
 * The uid a user namespace shows for owners it does not map. Inside one (a rootless container, or
 * cadre started in a namespace), the host's root-owned /usr/bin shows this owner.
 */
function overflowUid(): number {
  try {
    return Number(readFileSync('/proc/sys/kernel/overflowuid', 'utf8').trim());
  } catch {
    return 65534;
  }
}

/** Owners that may own a trusted executable and its directories. */
export interface TrustOptions {
  /** The current uid (root and this uid are trusted). */
  uid?: number;
  /**
   * Also trust an owner this user namespace does not map: only for the fixed system directories,
   * where a namespace shows the host's root as unmapped (never for a path from config).
   */
  unmappedOwner?: boolean;
}

/** True when a file's owner and mode keep anyone but the trusted owners from changing it. */
function safeOwnerAndMode(st: { uid: number; mode: number }, owners: readonly number[]): boolean {
  const ownerOk = owners.includes(st.uid);
  // Group- or world-writable: someone else could replace what runs. A sticky directory (/tmp)
  // still lets others create names in it, so it does not count as safe either.
  return ownerOk && (st.mode & 0o022) === 0;
}

/**
 * Checks that `file` is an absolute path to an executable regular file that only root or the
 * current user can change, in directories only they can change. Symbolic links are followed (a
 * system `/bin` is often a link) and the real file and its directories are checked.
 */
export async function trustExecutable(file: string, options: TrustOptions = {}): Promise<TrustVerdict> {
  const uid = options.uid ?? process.getuid?.() ?? 0;
  const owners = [0, uid, ...(options.unmappedOwner ? [overflowUid()] : [])];
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
  if (!safeOwnerAndMode(st, owners))
    return {
      ok: false,
      reason: `${real} can be changed by other users (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)})`,
    };
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    const d = await lstat(dir).catch(() => undefined);
    if (d === undefined || !safeOwnerAndMode(d, owners))
      return { ok: false, reason: `${dir}, a directory holding ${real}, can be changed by other users` };
    if (dir === '/') break;
  }
  return { ok: true, path: real };
}

/** The first trusted `name` in the fixed system directories, or why there is none. */
export async function findSystemBinary(name: string): Promise<{ path: string } | { reason: string }> {
  const refused: string[] = [];
  for (const dir of SYSTEM_BIN_DIRS) {
    const candidate = path.join(dir, name);
    const verdict = await trustExecutable(candidate, { unmappedOwner: true });
    if (verdict.ok) return { path: candidate };
    if (!verdict.reason.endsWith('does not exist')) refused.push(verdict.reason);
  }
  return {
    reason:
      refused.length > 0
        ? `no trusted ${name} in ${SYSTEM_BIN_DIRS.join(', ')} (${refused.join('; ')})`
        : `${name} was not found in ${SYSTEM_BIN_DIRS.join(', ')}`,
  };
}

/** The first trusted `name` in the fixed system directories, with the path as found (not resolved). */
export async function systemBinary(name: string): Promise<string | undefined> {
  const found = await findSystemBinary(name);
  return 'path' in found ? found.path : undefined;
}
