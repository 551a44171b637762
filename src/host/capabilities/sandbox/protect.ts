// Keeps the project's code-that-runs-later paths (protected-paths.ts) read-only inside the sandbox,
// including paths that do not exist yet. A missing one gets a placeholder: an empty directory the
// host creates and the sandbox mounts read-only, so a command cannot create a file or directory by
// that name, write into it, or rename or remove it (a mount point cannot be). Directories holding a
// protected path (`.git` for `.git/hooks`) are pinned the same way, so they cannot be renamed
// aside and replaced. Placeholders (placeholders.ts) are empty directories, which git ignores.
import { lstatSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../../shared/errors.js';
import { acquire, dropPlaceholder, inode, isPlaceholder } from './placeholders.js';
import type { MountOp } from './types.js';

/** What a protected path was before a command, to notice a replacement afterwards. */
interface Snapshot {
  path: string;
  /** The inode then, or undefined when it did not exist. */
  ino: bigint | undefined;
  /** True when it was missing, a placeholder or an empty directory: nothing legitimate fills it. */
  vacant: boolean;
}

/** The mounts that protect a project, and how to undo the placeholders afterwards. */
export interface Protection {
  mounts: MountOp[];
  /**
   * The placeholders this command mounts: empty and read-only already, so a hide over one would
   * show the same and cost a mount.
   */
  placeholders: ReadonlySet<string>;
  /**
   * Moves aside anything that replaced a vacant path (resolving to what it says about that), then
   * removes the placeholders no other command uses, without waiting for that.
   */
  release(): Promise<string[]>;
}

/** Where one protected path leads: the entry to mount read-only and the directories above it. */
async function resolveProtected(
  projectDir: string,
  rel: string,
): Promise<{ target: string; ancestors: string[] }> {
  const ancestors: string[] = [];
  let cur = projectDir;
  const segs = rel.split('/');
  for (const [i, seg] of segs.entries()) {
    const next = path.join(cur, seg);
    const st = lstatSync(next, { bigint: true, throwIfNoEntry: false });
    if (st?.isSymbolicLink())
      throw new CadreError(
        'sandbox_unavailable',
        `the protected path ${path.relative(projectDir, next)} is a symbolic link, which the sandbox cannot keep read-only; replace it with the directory or file itself, or run without the sandbox ("sandbox": "off" in ~/.cadre/config.json)`,
      );
    // Missing (protect it, so it cannot be created), one of this process's placeholders (the same:
    // a placeholder `.git` is not a repository to look into), a file where a directory was
    // expected (a `.git` pointer file), or the path itself: this is the entry to keep read-only.
    if (st === undefined || isPlaceholder(next, st.ino) || !st.isDirectory() || i === segs.length - 1)
      return { target: next, ancestors };
    ancestors.push(next);
    cur = next;
  }
  return { target: cur, ancestors };
}

/** Moves a vacant protected path that something filled during a command out of the way. */
async function quarantine(projectDir: string, p: string): Promise<string> {
  const rel = path.relative(projectDir, p);
  const dest = path.join(projectDir, '.cadre', 'quarantine', `${Date.now()}-${process.pid}`, rel);
  await mkdir(path.dirname(dest), { recursive: true });
  await rename(p, dest);
  return `${rel} appeared in the project while a command ran with it protected; it was moved to ${path.relative(projectDir, dest)}`;
}

/**
 * Plans the protection of `rels` (project-relative, from `protectedPaths`) in `projectDir`:
 * read-only mounts for each, read-write self-binds pinning the directories above them, and
 * placeholders for those missing. Throws `sandbox_unavailable` for a protected symbolic link.
 */
export async function protectProject(projectDir: string, rels: readonly string[]): Promise<Protection> {
  const targets = new Map<string, string[]>();
  for (const rel of rels) {
    const { target, ancestors } = await resolveProtected(projectDir, rel);
    targets.set(target, ancestors);
  }
  const acquired: string[] = [];
  const snapshots: Snapshot[] = [];
  const pins = new Set<string>();
  const ro: MountOp[] = [];
  for (const [target, ancestors] of targets) {
    for (const dir of ancestors) pins.add(dir);
    // Through acquire even when something is there: it may be this process's own placeholder,
    // in use (shared) or being removed (waited for, then made again).
    let ino = await acquire(target);
    let vacant = true;
    if (ino !== undefined) acquired.push(target);
    else {
      const before = inode(target);
      if (before === undefined)
        throw new CadreError(
          'sandbox_unavailable',
          `could not protect ${target}: it changed while the sandbox was set up`,
        );
      ino = before.ino;
      vacant = before.empty;
    }
    snapshots.push({ path: target, ino, vacant });
    ro.push({ kind: 'ro-bind', source: target, target });
  }
  const mounts: MountOp[] = [
    ...[...pins].sort().map((dir): MountOp => ({ kind: 'bind', source: dir, target: dir })),
    ...ro,
  ];
  return {
    mounts,
    placeholders: new Set(acquired),
    async release() {
      const notes: string[] = [];
      for (const snap of snapshots) {
        const now = inode(snap.path);
        if (snap.vacant && now !== undefined && now.ino !== snap.ino && !now.empty)
          notes.push(
            await quarantine(projectDir, snap.path).catch(
              (e: Error) =>
                `${snap.path} changed during a command and could not be moved aside: ${e.message}`,
            ),
          );
      }
      // Removing placeholders is bookkeeping, not the caller's wait: it runs after the result.
      for (const p of acquired) dropPlaceholder(p);
      return notes;
    },
  };
}
