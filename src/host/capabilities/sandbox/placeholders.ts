// The placeholders that hold missing protected paths: empty directories this process creates in
// the project (or, where git reads a file, a file that changes nothing), shared by the commands running at once, kept a moment after the last one ends (a
// command right after reuses them instead of waiting for a removal and a new directory), then
// removed, and removed at exit whatever happens.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';

/** How long an unused placeholder stays, for a command that follows at once. */
export const PLACEHOLDER_LINGER_MS = 1_000;

/**
 * Placeholders that must be files, by the path's last two segments, with their content. git reads
 * `.git/commondir` whenever it exists and fails on anything but a file naming a directory: `.`
 * (the git directory itself) is what git assumes when the file is missing.
 */
const FILE_PLACEHOLDERS: Readonly<Record<string, string>> = { '.git/commondir': '.\n' };

/** The content of the file placeholder for `p`, or undefined when its placeholder is a directory. */
function fileContent(p: string): string | undefined {
  return FILE_PLACEHOLDERS[`${path.basename(path.dirname(p))}/${path.basename(p)}`];
}

/** True when `p` holds what this process puts in a placeholder there (nothing, or the file's content). */
function untouched(p: string): boolean {
  const content = fileContent(p);
  try {
    if (content === undefined) return readdirSync(p).length === 0;
    return lstatSync(p).isFile() && readFileSync(p, 'utf8') === content;
  } catch {
    return false;
  }
}

/** Removes the placeholder at `p` (synchronously, at exit). */
function removeSync(p: string): void {
  if (fileContent(p) === undefined) rmdirSync(p);
  else unlinkSync(p);
}

/** A placeholder this process created. */
interface Placeholder {
  ino: bigint;
  /** Running commands that mount it. */
  users: number;
  /** Set while it waits, unused, to be removed. */
  linger?: NodeJS.Timeout;
  /** Set once its removal has begun. */
  removing?: Promise<void>;
}

/** Placeholders this process created, by path. */
const placeholders = new Map<string, Placeholder>();

let exitHook = false;
/** At exit, every placeholder still empty and still the one made here is removed. */
function removeAllAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const [p, known] of placeholders) {
      try {
        if (lstatSync(p, { bigint: true }).ino === known.ino && untouched(p)) removeSync(p);
      } catch {
        // Already gone, or no longer ours to remove.
      }
    }
  });
}

/** True when `p`, with inode `ino`, is a placeholder this process made (in use, lingering or going). */
export function isPlaceholder(p: string, ino: bigint): boolean {
  return placeholders.get(p)?.ino === ino;
}

/**
 * The inode of `p`, whether it is a directory and whether it is an empty one. Synchronous: a
 * command asks this of a few dozen fixed paths, where the promise forms cost ten times more.
 */
export function inode(p: string): { ino: bigint; dir: boolean; empty: boolean } | undefined {
  const st = lstatSync(p, { bigint: true, throwIfNoEntry: false });
  if (st === undefined) return undefined;
  const dir = st.isDirectory();
  let empty = false;
  if (dir) {
    try {
      empty = readdirSync(p).length === 0;
    } catch {
      empty = false;
    }
  }
  return { ino: st.ino, dir, empty };
}

/**
 * Creates the placeholder at `p`, or joins this process's placeholder there; undefined when
 * something else is there (an existing protected path, or another process's placeholder).
 */
export async function acquire(p: string): Promise<bigint | undefined> {
  for (let attempt = 0; attempt < 10; attempt++) {
    // A removal under way finishes first: a placeholder being removed protects nothing.
    const pending = placeholders.get(p)?.removing;
    if (pending !== undefined) {
      await pending;
      continue;
    }
    const now = inode(p);
    const known = placeholders.get(p);
    if (known?.removing !== undefined) continue;
    if (known !== undefined && now?.ino === known.ino) {
      clearTimeout(known.linger);
      delete known.linger;
      known.users++;
      return known.ino;
    }
    if (now !== undefined) return undefined;
    const content = fileContent(p);
    try {
      if (content === undefined) mkdirSync(p, { mode: 0o755 });
      else writeFileSync(p, content, { flag: 'wx', mode: 0o444 });
    } catch {
      // Someone else made it first: judged below like anything else found there.
    }
    const made = inode(p);
    if (made === undefined || made.dir !== (content === undefined) || !untouched(p)) return undefined;
    // Read and written with no await between: a concurrent acquire that made the same directory
    // counts as a user of it, and the users of one removed behind this process's back carry over.
    const current = placeholders.get(p);
    if (current?.removing !== undefined) continue;
    if (current?.linger !== undefined) clearTimeout(current.linger);
    placeholders.set(p, { ino: made.ino, users: (current?.users ?? 0) + 1 });
    removeAllAtExit();
    return made.ino;
  }
  return undefined;
}

/** One command is done with the placeholder at `p`; unused for a moment, it is removed. */
export function dropPlaceholder(p: string): void {
  const known = placeholders.get(p);
  if (known === undefined || --known.users > 0) return;
  known.linger = setTimeout(() => {
    delete known.linger;
    if (known.users > 0 || placeholders.get(p) !== known) return;
    known.removing = (async () => {
      if (inode(p)?.ino === known.ino && untouched(p))
        await (fileContent(p) === undefined ? rmdir(p) : unlink(p)).catch(() => undefined);
      if (placeholders.get(p) === known) placeholders.delete(p);
    })();
  }, PLACEHOLDER_LINGER_MS);
  known.linger.unref();
}
