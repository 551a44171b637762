// Resolves a path a worker asked for into the facts the policy needs: its absolute form and its
// real location on disk (symlinks followed, even for a file that does not exist yet).
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../shared/errors.js';

/** A requested path and where it really leads. */
export interface ResolvedPath {
  /** What the caller passed, unchanged. */
  requested: string;
  /** `path.resolve(projectDir, requested)`: lexically normalised, symlinks not followed. */
  absolute: string;
  /**
   * Every symlink followed. For a path that does not exist, the real path of its nearest existing
   * ancestor joined with the rest, so a new file under a symlinked directory that points outside
   * the project is seen as outside.
   */
  real: string;
  /** Whether the path exists now. */
  exists: boolean;
}

/** Linux's own limit on symlinks followed while resolving one path. */
export const MAX_LINKS = 40;

/** The error for a symlink followed past MAX_LINKS. */
export function tooManyLinks(p: string): CadreError {
  return new CadreError('invalid_input', `too many levels of symbolic links: ${p}`);
}

/**
 * What a failed realpath of `p` means: undefined when `p` (or a directory on it) does not exist,
 * so the caller resolves it by hand; otherwise the error to throw.
 */
export function realpathFailure(error: unknown, p: string): CadreError | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
  if (code === 'ELOOP') return tooManyLinks(p);
  return new CadreError('io_error', `cannot resolve ${p}: ${(error as Error).message}`);
}

/** Real path of `p`, which may not exist: follows dangling symlinks and missing tails by hand. */
async function realOf(p: string, links: { count: number }): Promise<{ real: string; exists: boolean }> {
  try {
    return { real: await realpath(p), exists: true };
  } catch (error) {
    const failure = realpathFailure(error, p);
    if (failure) throw failure;
  }
  const parent = path.dirname(p);
  if (parent === p) return { real: p, exists: false };
  // A dangling symlink exists as a link; writing through it would create its target, so the
  // target is what must be judged, not the link's own location.
  const link = await lstat(p).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    if (++links.count > MAX_LINKS) throw tooManyLinks(p);
    const target = path.resolve(path.dirname(p), await readlink(p));
    return { real: (await realOf(target, links)).real, exists: false };
  }
  const up = await realOf(parent, links);
  return { real: path.join(up.real, path.basename(p)), exists: false };
}

/**
 * Resolves `requested` against `projectDir`. `~` is not expanded: a leading `~` names a file or
 * directory called `~` in the project, as it would for any program that is not a shell.
 * Throws `invalid_input` for a NUL byte or a symlink loop.
 */
export async function resolvePath(requested: string, projectDir: string): Promise<ResolvedPath> {
  if (requested.includes('\0')) throw new CadreError('invalid_input', 'a path cannot contain a NUL byte');
  const absolute = path.resolve(projectDir, requested);
  const { real, exists } = await realOf(absolute, { count: 0 });
  return { requested, absolute, real, exists };
}

/** True when `real` is one of `roots` or lies below one. Both sides must be real, absolute paths. */
export function isInside(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    if (real === root) return true;
    const prefix = root.endsWith(path.sep) ? root : root + path.sep;
    return real.startsWith(prefix);
  });
}

/**
 * How a prompt names a path: as requested, and, when a symlink leads elsewhere, where it really
 * leads (`docs/notes.md → src/auth.ts`), on one line. A person approves the file that changes, not
 * the name a link gives it.
 */
export function shownPath(target: ResolvedPath, projectDir: string): string {
  // A path may hold a line break: shown as a symbol, so it cannot start a line of the prompt.
  const requested = target.requested.replace(/\n/g, '\u240a');
  if (target.real === target.absolute) return requested;
  const real = path.relative(projectDir, target.real);
  const shown = real === '' ? '.' : real.startsWith('..') || path.isAbsolute(real) ? target.real : real;
  return `${requested} \u2192 ${shown.replace(/\n/g, '\u240a')}`;
}
