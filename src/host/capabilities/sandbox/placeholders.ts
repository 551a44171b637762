// The placeholders that hold missing protected paths: empty directories this process creates in
// the project, shared by the commands running at once, kept a moment after the last one ends (a
// command right after reuses them instead of waiting for a removal and a new directory), then
// removed, and removed at exit whatever happens.
import { lstatSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';

/** How long an unused placeholder stays, for a command that follows at once. */
export const PLACEHOLDER_LINGER_MS = 1_000;

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
        const st = lstatSync(p, { bigint: true });
        if (st.ino === known.ino && st.isDirectory() && readdirSync(p).length === 0) rmdirSync(p);
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
    try {
      mkdirSync(p, { mode: 0o755 });
    } catch {
      // Someone else made it first: judged below like anything else found there.
    }
    const made = inode(p);
    if (made === undefined || !made.dir || !made.empty) return undefined;
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
      const now = inode(p);
      if (now?.ino === known.ino && now.empty) await rmdir(p).catch(() => undefined);
      if (placeholders.get(p) === known) placeholders.delete(p);
    })();
  }, PLACEHOLDER_LINGER_MS);
  known.linger.unref();
}
