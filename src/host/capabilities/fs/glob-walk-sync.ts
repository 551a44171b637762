// The walk behind fs.glob (and Grep's one-pass reads), with synchronous calls on the host's I/O
// thread, never on the host's event loop: gitignore-aware, it skips `.git`, `node_modules` and
// `.cadre`, never leaves the allowed roots through a symlink, stops at a cap, and finds files in
// path order (each directory's entries sorted, a directory as its name plus `/`), so a caller can
// use them as they come. Each directory is listed through a descriptor checked to be the directory
// the walk expects (walk-dir-sync.ts), so a symlink swapped in meanwhile is never listed. The walk
// runs on a thread other runs share: it stops when its run ends (a flag in shared memory), after a
// time budget, and after a bounded amount of work, counting the .gitignore rules a model may write.
import fs from 'node:fs';
import path from 'node:path';
import type { FsGlobResult } from '../../../shared/capabilities.js';
import { isIgnored, type IgnoreMatcher } from '../gitignore.js';
import { isInside } from '../paths.js';
import { planGlob, type GlobPlan } from './glob-plan.js';
import type { OpenCheck } from './pin.js';
import { closeDir, entryPath, listDir, loadIgnore, openDirChecked, type OpenedDir } from './walk-dir-sync.js';
import { WALK_TIME_BUDGET_MS, WalkLimits } from './walk-limits.js';

/** Default cap on matches. */
const DEFAULT_GLOB_LIMIT = 10_000;
/**
 * Cap on the walk's work, so `**` over a huge tree still ends in bounded time: entries looked at,
 * ignore rules parsed and (weighed) ignore rule tests (walk-limits.ts).
 */
const DEFAULT_GLOB_SCAN_LIMIT = 1_000_000;
/** Directories never walked unless the pattern names them (cadre's records are never walked at all). */
const ALWAYS_SKIPPED = new Set(['.git', 'node_modules', '.cadre']);

/** Options of a walk (plain data: they cross to the I/O thread). */
export interface GlobWalkOptions {
  /** The project directory: results are relative to it, its .gitignore files and .git/info/exclude apply. */
  projectDir: string;
  /** Cap on matches (default 10,000); `truncated` says when more exist. */
  limit?: number;
  /** Directories a symlinked directory may lead into (default: the project and the root). */
  roots?: readonly string[];
  /** Cap on entries looked at (default 1,000,000). */
  scanLimit?: number;
  /** `mtime` (default): newest first. `path`: path order, with no stat per match. */
  sort?: 'mtime' | 'path';
  /** A stop flag shared with the event loop (walk-limits.ts): once set, the walk throws `cancelled`. */
  cancel?: Int32Array;
  /** The walk stops with what it found after this long (default `WALK_TIME_BUDGET_MS`). */
  timeBudgetMs?: number;
  /** cadre's own records (absolute, real): never listed, whatever the pattern names. */
  hidden?: readonly string[];
  /** How each directory entered is checked (pin.ts; default: as probed). */
  openCheck?: OpenCheck;
}

/** How a walk ended: where its results are relative to, whether it was cut short, and why. */
export interface WalkOutcome {
  root: string;
  /** The match cap, the work cap or the time budget stopped the walk. */
  truncated: boolean;
  /** What the caller should be told: a capped .gitignore, a walk stopped by its time budget. */
  notices: string[];
}

/** A file the walk found. */
export interface FoundFile {
  /** Relative to the project directory (absolute when outside it): what fs.glob returns. */
  path: string;
  /** The path the walk took (through followed symlinks). */
  abs: string;
  /** Where it really is: every symlink followed. */
  real: string;
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function realOf(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** An entry of an absolute, normalised directory (plain concatenation: path.join normalises again). */
function under(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

function join(rel: string, name: string): string {
  return rel === '' ? name : `${rel}/${name}`;
}

/** One directory to read. */
interface Dir {
  abs: string; // logical path (through any followed symlink), for results
  real: string; // where it really is, for the symlink checks
  rel: string; // relative to the glob root, for the pattern
  ignoreRel: string; // relative to the ignore base, for .gitignore rules
  depth: number;
  stack: readonly IgnoreMatcher[];
}

/** What a directory holds for the walk: matching files and directories to enter, in path order. */
type Item = { key: string; file: FoundFile } | { key: string; dir: Dir };

/** A directory being walked: its items and how far along they are. */
interface Frame {
  items: Item[];
  next: number;
}

/** The walk's fixed facts: the plan, the roots, where results are relative to, its limits. */
interface Walk {
  plan: GlobPlan;
  roots: string[];
  visited: Set<string>;
  display: (abs: string) => string;
  limits: WalkLimits;
  /** `options.hidden`, lowercased (records are compared case-insensitively). */
  hidden: readonly string[];
  /** `options.openCheck`. */
  openCheck: OpenCheck | undefined;
}

/**
 * The items of `dir` in path order, or undefined when the walk must stop. Sorting a directory as
 * its name plus `/` puts `a-b` before `a/x`, as sorting whole paths does. A directory that is gone
 * or was swapped since its parent was listed has no items.
 */
function itemsOf(dir: Dir, walk: Walk): Item[] | undefined {
  if (!walk.limits.canGoOn()) return undefined;
  const opened = openDirChecked(dir.real, walk.openCheck);
  if (!opened) return [];
  try {
    return itemsIn(opened, dir, walk);
  } finally {
    closeDir(opened);
  }
}

function itemsIn(opened: OpenedDir, dir: Dir, walk: Walk): Item[] | undefined {
  const { plan, roots, visited, limits } = walk;
  const entries = listDir(opened);
  let stack = dir.stack;
  if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
    const label = join(walk.display(dir.abs) === '.' ? '' : walk.display(dir.abs), '.gitignore');
    const matcher = loadIgnore(entryPath(opened, '.gitignore'), dir.ignoreRel, label, limits);
    if (matcher) stack = [...stack, matcher];
  }
  const items: Item[] = [];
  // Only a directory that holds a record (or lies in one, through a symlink) checks its entries.
  const hides = walk.hidden.length > 0 && walk.hidden.some((h) => isInside(h, [dir.real.toLowerCase()]));
  for (const entry of entries) {
    // At every entry: one entry's rule tests can cost as much as thousands of entries.
    limits.scanned++;
    if (!limits.canGoOn()) return undefined;
    const name = entry.name;
    const abs = under(dir.abs, name);
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    let childReal: string | undefined;
    if (entry.isSymbolicLink()) {
      // Resolved from inside the checked directory; a directory it leads to is checked again when
      // it is entered (openDirChecked), against the real path found here.
      const link = entryPath(opened, name);
      const target = statOf(link);
      if (!target) continue; // dangling
      isDir = target.isDirectory();
      isFile = target.isFile();
      childReal = realOf(link);
      if (!childReal) continue;
      // Never out of the roots, never back into an ancestor (a cycle), never twice.
      if (isDir && (!isInside(childReal, roots) || isInside(dir.real, [childReal]) || visited.has(childReal)))
        continue;
      if (isDir) visited.add(childReal);
    }
    if (
      (hides || childReal !== undefined) &&
      isInside((childReal ?? under(dir.real, name)).toLowerCase(), walk.hidden)
    )
      continue;
    const rel = join(dir.rel, name);
    const ignoreRel = join(dir.ignoreRel, name);
    if (isDir) {
      if (dir.depth + 1 >= plan.maxDepth) continue;
      // `.git` and `node_modules` are skipped unless the pattern names them, and then they are
      // walked even though a .gitignore usually lists node_modules.
      const skip = ALWAYS_SKIPPED.has(name)
        ? !plan.named.has(name)
        : isIgnored(stack, ignoreRel, true, limits.rules);
      if (skip) continue;
      const real = childReal ?? under(dir.real, name);
      items.push({ key: `${name}/`, dir: { abs, real, rel, ignoreRel, depth: dir.depth + 1, stack } });
    } else if (isFile && plan.regex.test(rel) && !isIgnored(stack, ignoreRel, false, limits.rules)) {
      const real = childReal ?? under(dir.real, name);
      items.push({ key: name, file: { path: walk.display(abs), abs, real } });
    }
  }
  return items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Walks `rootReal` (an already-checked real directory) for files whose path relative to it matches
 * `pattern` (dotfiles included), calling `found` with each, in path order, up to `limit`; says
 * whether the match cap, the work cap or the time budget cut the walk short. Throws
 * `invalid_input` for an empty, absolute, `..` or malformed pattern, and `cancelled` once
 * `options.cancel` is set.
 */
export function walkGlob(
  rootReal: string,
  pattern: string,
  options: GlobWalkOptions,
  found: (file: FoundFile) => void,
): WalkOutcome {
  const plan = planGlob(pattern);
  const limit = options.limit ?? DEFAULT_GLOB_LIMIT;
  const projectReal = realOf(options.projectDir) ?? path.resolve(options.projectDir);
  // Roots are compared with real paths, so they must be real too (a project under a symlink).
  const roots = (options.roots ?? [projectReal, rootReal]).map((r) => realOf(r) ?? path.resolve(r));
  // Paths below the project lose its prefix (path.relative's answer, without normalising each again).
  const inside = projectReal === '/' ? '/' : `${projectReal}/`;
  const display = (abs: string) =>
    abs === projectReal ? '.' : abs.startsWith(inside) ? abs.slice(inside.length) : abs;
  const root = display(rootReal);
  const limits = new WalkLimits(
    options.scanLimit ?? DEFAULT_GLOB_SCAN_LIMIT,
    options.cancel,
    options.timeBudgetMs ?? WALK_TIME_BUDGET_MS,
  );
  const hidden = (options.hidden ?? []).map((h) => h.toLowerCase());
  const walk: Walk = {
    plan,
    roots,
    visited: new Set(),
    display,
    limits,
    hidden,
    openCheck: options.openCheck,
  };
  const outcome = (truncated: boolean): WalkOutcome => ({ root, truncated, notices: limits.notices() });
  if (!limits.canGoOn()) return outcome(true);

  // Ignore rules live relative to the project when the root is inside it, else to the root.
  const ignoreBase = isInside(rootReal, [projectReal]) ? projectReal : rootReal;
  const stack: IgnoreMatcher[] = [];
  if (ignoreBase === projectReal) {
    const exclude = loadIgnore(
      path.join(projectReal, '.git', 'info', 'exclude'),
      '',
      '.git/info/exclude',
      limits,
    );
    if (exclude) stack.push(exclude);
  }
  const startLogical = path.join(rootReal, ...plan.prefix);
  // .gitignore files of the directories above the walk's start still apply to what is below it.
  const above = path.relative(ignoreBase, path.dirname(startLogical));
  if (startLogical !== ignoreBase && !above.startsWith('..')) {
    const parts = above === '' ? [] : above.split(path.sep);
    for (let i = 0; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      const file = path.join(ignoreBase, ...parts.slice(0, i), '.gitignore');
      const matcher = loadIgnore(file, rel, display(file), limits);
      if (matcher) stack.push(matcher);
    }
  }
  const startReal = realOf(startLogical);
  if (!startReal || !isInside(startReal, roots)) return outcome(false);
  if (isInside(startReal.toLowerCase(), hidden)) return outcome(false);
  if (!statOf(startReal)?.isDirectory()) return outcome(false);
  walk.visited.add(startReal);

  const start: Dir = {
    abs: startLogical,
    real: startReal,
    rel: plan.prefix.join('/'),
    ignoreRel: path.relative(ignoreBase, startLogical).split(path.sep).join('/'),
    depth: plan.prefix.length,
    stack,
  };
  let matches = 0;
  const frames: Frame[] = [];
  const enter = (dir: Dir): boolean => {
    const items = itemsOf(dir, walk);
    if (items) frames.push({ items, next: 0 });
    return items !== undefined;
  };
  if (!enter(start)) return outcome(true);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1] as Frame;
    const item = frame.items[frame.next++];
    if (item === undefined) {
      frames.pop();
    } else if ('dir' in item) {
      if (!enter(item.dir)) return outcome(true);
    } else {
      if (matches >= limit) return outcome(true);
      matches++;
      found(item.file);
    }
  }
  return outcome(false);
}

/**
 * Finds files under `rootReal` (an already-checked real directory) whose path relative to it
 * matches `pattern` (dotfiles included). Results are relative to the project directory (absolute
 * when outside it), newest first (path order with `sort: 'path'`); when a cap is hit the first
 * matches in path order are returned with `truncated: true` (and `notices` say why, when it is not
 * the match cap). Errors: `invalid_input` for an empty, absolute, `..` or malformed pattern,
 * `cancelled` once `options.cancel` is set.
 */
export function globSync(rootReal: string, pattern: string, options: GlobWalkOptions): FsGlobResult {
  const files: FoundFile[] = [];
  const { root, truncated, notices } = walkGlob(rootReal, pattern, options, (file) => files.push(file));
  const extra = notices.length > 0 ? { notices } : {};
  if (options.sort === 'path') return { root, files: files.map((f) => f.path), truncated, ...extra };
  const order = files.map((f) => ({ f, mtime: mtimeOf(f.abs) }));
  order.sort((a, b) => b.mtime - a.mtime || (a.f.abs < b.f.abs ? -1 : a.f.abs > b.f.abs ? 1 : 0));
  return { root, files: order.map((m) => m.f.path), truncated, ...extra };
}
