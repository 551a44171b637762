// Repositories nested in the project run code on the host too. The person's `git status` or
// `git diff` at the top checks every gitlink in the index by running git in its directory, with
// that directory's own `.git` (its config's core.fsmonitor, its filters); and a command may write
// the index (to commit), so it may add a gitlink to a repository of its own making. So every
// nested `.git` that exists when a command starts is kept read-only with the protected paths, and
// one that a command made is moved aside to `.cadre/quarantine/`, renamed so that it is no longer
// a repository, when it ends.
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../../shared/errors.js';
import type { Protection } from './protect.js';
import type { ScanResult, ScanSpec, TreeScanner } from './tree-scan.js';

const isGit = (abs: string) => path.basename(abs).toLowerCase() === '.git';

/**
 * The scan that finds every `.git` entry (directory, file or link) below the project's own
 * top-level `.git`, which is not looked into. Symbolic links are not followed. For `scanAll`,
 * alongside the project's other scans; `nestedGitIn` reads its result.
 */
export function nestedGitScan(projectDir: string): ScanSpec {
  const top = path.join(projectDir, '.git');
  return {
    judge: (abs, type) => {
      if (abs === top) return 'keep';
      if (isGit(abs)) return 'hide';
      return type === 'dir' ? 'descend' : 'keep';
    },
    key: `nested-git\0${projectDir}`,
  };
}

/** Project-relative paths of the nested `.git` entries `nestedGitScan` found; throws when it stopped short. */
export function nestedGitIn(projectDir: string, result: ScanResult): string[] {
  if (!result.complete)
    throw new CadreError(
      'sandbox_unavailable',
      `${projectDir} has more than ${result.entries - 1} entries; the sandbox cannot check them all for nested git repositories, so no command runs`,
    );
  return result.hidden
    .filter((h) => isGit(h.path))
    .map((h) => path.relative(projectDir, h.path))
    .sort();
}

/** Project-relative paths of every nested `.git` entry in the project (see `nestedGitScan`). */
async function nestedGitPaths(projectDir: string, scanner: TreeScanner): Promise<string[]> {
  const [result] = await scanner.scanAll(projectDir, [nestedGitScan(projectDir)]);
  return nestedGitIn(projectDir, result as ScanResult);
}

/**
 * Moves a nested `.git` a command made out of the project's tree, saying where. It is kept as
 * `.git-quarantined`: under its own name it would still be a repository (a later command could
 * point a gitlink at it, and the host's git would run its config), under another it is inert.
 */
async function moveAside(projectDir: string, batch: string, rel: string): Promise<string> {
  const dest = path.join(projectDir, '.cadre', 'quarantine', batch, `${rel}-quarantined`);
  try {
    await mkdir(path.dirname(dest), { recursive: true });
    await rename(path.join(projectDir, rel), dest);
    return `${rel} is a git repository a command made inside the project (git on the host would run its config); it was moved to ${path.relative(projectDir, dest)}`;
  } catch (error) {
    return `${rel} is a git repository a command made inside the project, and could not be moved aside (${(error as Error).message}); remove it before running git here`;
  }
}

/**
 * `protection`, whose release also moves aside every nested `.git` that was not there before the
 * command (`before`, from `nestedGitIn`). A scan that fails says so rather than passing.
 */
export function withNestedGitCheck(
  protection: Protection,
  projectDir: string,
  scanner: TreeScanner,
  before: readonly string[],
): Protection {
  const known = new Set(before);
  return {
    mounts: protection.mounts,
    placeholders: protection.placeholders,
    async release() {
      const notes = await protection.release();
      const after = await nestedGitPaths(projectDir, scanner).catch((error: Error) => error);
      if (after instanceof Error)
        return [
          ...notes,
          `the project could not be checked for git repositories a command made: ${after.message}`,
        ];
      const batch = `${Date.now()}-${process.pid}`;
      for (const rel of after.filter((p) => !known.has(p)))
        notes.push(await moveAside(projectDir, batch, rel));
      return notes;
    },
  };
}
