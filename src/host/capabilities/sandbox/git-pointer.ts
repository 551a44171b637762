// The directories outside the project that a linked worktree's or a submodule's `.git` file points
// at, made readable (not writable) in the sandbox so `git status`, `log` and `diff` work there.
// The `.git` file is the project's own text (an unpacked archive can ship one), so a pointer counts
// only when the directory it names points back at this project, as git's own bookkeeping does: a
// linked worktree's git directory holds a `gitdir` file naming the worktree's `.git`, a submodule's
// holds `core.worktree` naming the submodule. Without that, `gitdir: /home/me` would open the
// person's whole home to commands.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** A small file's text, or undefined when it cannot be read (a directory, missing, unreadable). */
function readSmall(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The real path of `p`, or undefined when it does not exist. */
function real(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** Whether the git directory `gitdir` records `projectDir` as its working tree. */
function pointsBack(gitdir: string, projectDir: string): boolean {
  const project = real(projectDir);
  if (project === undefined) return false;
  // A linked worktree: `<gitdir>/gitdir` names the worktree's `.git` file.
  const back = readSmall(path.join(gitdir, 'gitdir'))?.trim();
  if (back !== undefined && back !== '' && real(path.resolve(gitdir, back)) === path.join(project, '.git'))
    return true;
  // A submodule (or an absorbed repository): `core.worktree` in its config, relative to `gitdir`.
  const config = readSmall(path.join(gitdir, 'config')) ?? '';
  const core = /^\s*\[core\]([\s\S]*?)(?=^\s*\[|(?![\s\S]))/im.exec(config)?.[1] ?? '';
  const worktree = /^\s*worktree\s*=\s*(.+?)\s*$/im.exec(core)?.[1]?.replace(/^"(.*)"$/, '$1');
  return worktree !== undefined && real(path.resolve(gitdir, worktree)) === project;
}

/**
 * The git directory (and its common directory) a `.git` file in `projectDir` points at, when that
 * directory points back at the project; otherwise none.
 */
export function gitPointerDirs(projectDir: string): string[] {
  const dotGit = path.join(projectDir, '.git');
  // A repository's .git is a directory: only a file can point elsewhere.
  if (statSync(dotGit, { throwIfNoEntry: false })?.isFile() !== true) return [];
  const target = /^gitdir: (.+)$/m.exec(readSmall(dotGit) ?? '')?.[1]?.trim();
  if (target === undefined) return [];
  const gitdir = path.resolve(projectDir, target);
  if (!pointsBack(gitdir, projectDir)) return [];
  const common = readSmall(path.join(gitdir, 'commondir'));
  return common === undefined ? [gitdir] : [gitdir, path.resolve(gitdir, common.trim())];
}
