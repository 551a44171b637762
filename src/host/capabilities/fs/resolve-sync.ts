// paths.ts's resolvePath with synchronous calls, and a batch form of it, for the host's I/O thread,
// where Grep's batches are resolved, judged and read in one pass. Same algorithm, same results (a
// test holds them equal); the batch form costs one realpath and one readdir per directory.
import fs from 'node:fs';
import path from 'node:path';
import { CadreError } from '../../../shared/errors.js';
import { MAX_LINKS, realpathFailure, tooManyLinks, type ResolvedPath } from '../paths.js';

/** Real path of `p`, which may not exist: follows dangling symlinks and missing tails by hand. */
function realOf(p: string, links: { count: number }): { real: string; exists: boolean } {
  try {
    return { real: fs.realpathSync.native(p), exists: true };
  } catch (error) {
    const failure = realpathFailure(error, p);
    if (failure) throw failure;
  }
  const parent = path.dirname(p);
  if (parent === p) return { real: p, exists: false };
  let link: fs.Stats | undefined;
  try {
    link = fs.lstatSync(p);
  } catch {
    link = undefined;
  }
  if (link?.isSymbolicLink()) {
    if (++links.count > MAX_LINKS) throw tooManyLinks(p);
    const target = path.resolve(path.dirname(p), fs.readlinkSync(p));
    return { real: realOf(target, links).real, exists: false };
  }
  const up = realOf(parent, links);
  return { real: path.join(up.real, path.basename(p)), exists: false };
}

/** `resolvePath` (paths.ts), synchronously. Throws `invalid_input` for a NUL byte or a symlink loop. */
export function resolvePathSync(requested: string, projectDir: string): ResolvedPath {
  if (requested.includes('\0')) throw new CadreError('invalid_input', 'a path cannot contain a NUL byte');
  const absolute = path.resolve(projectDir, requested);
  const { real, exists } = realOf(absolute, { count: 0 });
  return { requested, absolute, real, exists };
}

/** Relative, and already normal: no leading or trailing `/`, no `//`, no `.` or `..` segment. */
const PLAIN_RELATIVE = /^(?!\.\.?(?:\/|$))(?:[^/]+\/(?!\.\.?(?:\/|$)))*[^/]+$/;

/** True when `path.resolve(base, p)` is `base + '/' + p` (a relative path already in normal form). */
export function isPlainRelative(p: string): boolean {
  return PLAIN_RELATIVE.test(p);
}

interface DirListing {
  real: string;
  /** Entry name -> true when it is a plain (non-symlink) entry. */
  plain: Map<string, boolean>;
}

function listing(dir: string): DirListing | undefined {
  try {
    const real = fs.realpathSync.native(dir);
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    const plain = new Map<string, boolean>();
    for (const e of entries) plain.set(e.name, !e.isSymbolicLink());
    return { real, plain };
  } catch {
    // Missing or unreadable: each of its paths is resolved alone.
    return undefined;
  }
}

/**
 * Resolves many paths (Grep's file lists) with one realpath and one readdir per directory instead
 * of a realpath per file. An entry that is a symlink, or is not listed, is resolved alone, so the
 * result is the same as `resolvePath` gives for each path.
 */
export function resolveManySync(requested: readonly string[], projectDir: string): ResolvedPath[] {
  const dirs = new Map<string, DirListing | undefined>();
  const base = path.resolve(projectDir);
  const prefix = base === '/' ? '/' : `${base}/`;
  return requested.map((one) => {
    if (one.includes('\0')) return resolvePathSync(one, projectDir);
    // A plain relative path (no `.`, `..` or empty segment) resolves by concatenation.
    const absolute = isPlainRelative(one) ? prefix + one : path.resolve(projectDir, one);
    const slash = absolute.lastIndexOf('/');
    const dirName = slash === 0 ? '/' : absolute.slice(0, slash);
    let dir = dirs.get(dirName);
    if (!dirs.has(dirName)) {
      dir = listing(dirName);
      dirs.set(dirName, dir);
    }
    const name = absolute.slice(slash + 1);
    if (dir?.plain.get(name) === true) {
      return {
        requested: one,
        absolute,
        real: dir.real === '/' ? `/${name}` : `${dir.real}/${name}`,
        exists: true,
      };
    }
    return resolvePathSync(one, projectDir);
  });
}
