// Builds one command's sandbox file system as a list of mounts both backends apply in order. What a
// command can read is an allowlist: the system directories, the project, the home toolchains and
// configuration found by probing, `permissions.additionalDirectories` and `sandbox.allowRead`. Only
// the project is writable, and in it the protected paths are not; a private /tmp and home directory
// are size-capped tmpfs. Hidden paths are mounted over last, so they are hidden wherever they are.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { protectedPaths } from '../policy/protected-paths.js';
import { isUnder } from '../policy/path-match.js';
import { projectHooksPath } from './git-hooks.js';
import { gitPointerDirs } from './git-pointer.js';
import { collectHiddenWith, type HideContext } from './hide.js';
import { homeEntries, isCredential } from './home.js';
import { nestedGitIn, nestedGitScan, withNestedGitCheck } from './nested-git.js';
import { protectProject, type Protection } from './protect.js';
import { readTodos, withRebaseCheck } from './rebase-state.js';
import type { SystemView } from './system-view.js';
import type { ScanResult, TreeScanner } from './tree-scan.js';
import { SANDBOX_LIMITS, type MountOp, type SandboxPlan } from './types.js';

/** What one command's sandbox is built from. */
export interface PlanRequest {
  /** The project (real path): the one writable directory. */
  projectDir: string;
  /** Where the command starts (real path, inside the project). */
  cwd: string;
  /** The host home directory, if there is one. */
  home: string | undefined;
  /** The PATH commands get (its directories in the home are bound). */
  pathVar: string;
  /** `permissions.additionalDirectories` (absolute): readable. */
  extraRoots: readonly string[];
  /** `sandbox.allowRead` (absolute): readable. */
  allowRead: readonly string[];
  /** `sandbox.denyRead` (absolute): hidden. */
  denyRead: readonly string[];
  /** `sandbox.protect` (project-relative): read-only. */
  protect: readonly string[];
  rules: HideContext['rules'];
}

/** A plan and the protection to release once the command has ended. */
export interface PlannedSandbox {
  plan: SandboxPlan;
  protection: Protection;
}

// The few paths and small files a plan reads are read synchronously: each promise would cost a
// trip through the thread pool, slower than the call itself, and more so on a busy machine.

/** The real path of `p` when it exists, else undefined. */
function existingReal(p: string): string | undefined {
  try {
    const real = realpathSync.native(p);
    return statSync(real, { throwIfNoEntry: false }) === undefined ? undefined : real;
  } catch {
    return undefined;
  }
}

/**
 * Existing directories or files of `paths`, by real path, outside the project. A path written inside
 * the project names a part of it: one that leads out through a symbolic link (which a repository
 * ships, or an earlier command made) is left out, or a project's `"allowRead": ["link"]` with
 * `link -> ~` would show the home.
 */
function readableRoots(paths: readonly string[], projectDir: string): string[] {
  const out = paths.map((p) => {
    if (isUnder(path.resolve(p), projectDir)) return undefined;
    const real = existingReal(p);
    return real === undefined || real === '/' || isUnder(real, projectDir) ? undefined : real;
  });
  return [...new Set(out.filter((p): p is string => p !== undefined))];
}

/** The home directory inside: the host's, unless it is missing, `/`, `/tmp` or inside a system directory. */
function insideHome(home: string | undefined, system: SystemView): string | undefined {
  if (home === undefined || !path.isAbsolute(home) || home === '/') return undefined;
  if (home === '/tmp' || system.roots.some((r) => isUnder(home, r.path))) return undefined;
  return home;
}

/** HOME inside the sandbox, as the plan for `home` will have it (known before the plan is made). */
export function sandboxHome(home: string | undefined, system: SystemView): string {
  return insideHome(home, system) ?? '/tmp';
}

const depth = (p: string) => p.split('/').length;

/** True when `p` lies in a system root bound from a mirror that left it out: nothing to hide there. */
function leftOutOfMirror(p: string, system: SystemView): boolean {
  for (const r of system.roots)
    if (r.kind === 'dir' && r.source !== undefined && isUnder(p, r.path))
      return (
        lstatSync(path.join(r.source, path.relative(r.path, p)), { throwIfNoEntry: false }) === undefined
      );
  return false;
}

/**
 * Plans the sandbox of one command. Placeholders for missing protected paths are created here;
 * the caller must `protection.release()` when the command has ended (or failed to start).
 */
export async function planSandbox(
  req: PlanRequest,
  system: SystemView,
  scanner: TreeScanner,
): Promise<PlannedSandbox> {
  const home = insideHome(req.home, system);
  const readable = readableRoots(
    [...req.extraRoots, ...req.allowRead, ...gitPointerDirs(req.projectDir)],
    req.projectDir,
  );
  const toolchains = home === undefined ? [] : await homeEntries(home, req.pathVar);
  const base: MountOp[] = [];
  for (const root of system.roots)
    base.push(
      root.kind === 'dir'
        ? { kind: 'ro-bind', source: root.source ?? root.path, target: root.path }
        : { kind: 'symlink', linkTarget: root.target, target: root.path },
    );
  base.push(
    { kind: 'dev' },
    { kind: 'proc' },
    { kind: 'tmpfs', target: '/tmp', sizeBytes: SANDBOX_LIMITS.tmpBytes },
  );
  // Views go shallowest first, so a wider one never covers a narrower one mounted before it; at
  // the same depth the private home tmpfs goes first (an allowRead of the home itself wins).
  const views: { op: MountOp; at: string; order: number }[] = [];
  if (home !== undefined)
    views.push({
      op: { kind: 'tmpfs', target: home, sizeBytes: SANDBOX_LIMITS.homeBytes },
      at: home,
      order: 0,
    });
  const credential = (p: string) => req.home !== undefined && isCredential(p, req.home);
  for (const p of [...toolchains, ...readable.filter((r) => !credential(r))])
    views.push({ op: { kind: 'ro-bind', source: p, target: p }, at: p, order: 1 });
  views.sort((a, b) => depth(a.at) - depth(b.at) || a.order - b.order || a.at.localeCompare(b.at));
  const hooks = projectHooksPath(req.projectDir, req.home);
  const visibleRoots = [...system.roots.filter((r) => r.kind === 'dir').map((r) => r.path), ...toolchains];
  // One pass over the project finds both its secrets and the repositories nested in it, which are
  // held like the project's own .git (nested-git.ts).
  const [scanned, todos] = await Promise.all([
    collectHiddenWith(
      {
        projectDir: req.projectDir,
        extraRoots: req.extraRoots,
        ...(req.home !== undefined ? { homeDir: req.home } : {}),
        home: req.home,
        rules: req.rules,
        denyRead: req.denyRead,
      },
      scanner,
      [req.projectDir, ...readable],
      visibleRoots,
      [nestedGitScan(req.projectDir)],
    ),
    readTodos(req.projectDir),
  ]);
  const nested = nestedGitIn(req.projectDir, scanned.alongside[0] as ScanResult);
  const protection = withRebaseCheck(
    withNestedGitCheck(
      await protectProject(req.projectDir, protectedPaths([...req.protect, ...hooks, ...nested])),
      req.projectDir,
      scanner,
      nested,
    ),
    req.projectDir,
    todos,
  );
  try {
    // The system's own rule (hide what others may not read) is not the project's: a project kept
    // under /opt is judged as a project.
    const systemHidden = system.hidden.filter((h) => !isUnder(h.path, req.projectDir));
    const hides: MountOp[] = [...systemHidden, ...scanned.hidden]
      .filter((e) => !protection.placeholders.has(e.path) && !leftOutOfMirror(e.path, system))
      .sort((a, b) => depth(a.path) - depth(b.path))
      .map((e) => ({ kind: e.dir ? 'hide-dir' : 'hide-file', target: e.path }));
    // An allowRead naming a credential store itself is the user's explicit choice: bound after the hides.
    const explicit: MountOp[] = readable
      .filter(credential)
      .map((r) => ({ kind: 'ro-bind', source: r, target: r }));
    const mounts: MountOp[] = [
      ...base,
      ...views.map((v) => v.op),
      { kind: 'bind', source: req.projectDir, target: req.projectDir },
      ...protection.mounts,
      ...hides,
      ...explicit,
    ];
    return { plan: { mounts, cwd: req.cwd, home: sandboxHome(req.home, system) }, protection };
  } catch (error) {
    await protection.release();
    throw error;
  }
}
