// The walk behind fs.glob, with synchronous calls on the host's I/O thread (never on the host's
// event loop): gitignore-aware, it skips `.git`, `node_modules` and `.cadre`, never leaves the
// allowed roots through a symlink, stops at a cap, and returns the newest files first.
import fs, { constants, type Dirent } from 'node:fs';
import path from 'node:path';
import type { FsGlobResult } from '../../../shared/capabilities.js';
import { createIgnoreMatcher, isIgnored, type IgnoreMatcher } from '../gitignore.js';
import { isInside } from '../paths.js';
import { planGlob } from './glob-plan.js';

/** Default cap on matches. */
export const DEFAULT_GLOB_LIMIT = 10_000;
/** Cap on directory entries looked at, so `**` over a huge tree still ends in bounded time. */
export const DEFAULT_GLOB_SCAN_LIMIT = 1_000_000;
/** Directories never walked unless the pattern names them. */
// .cadre holds transcripts and the audit log: other runs' conversations are not search material.
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
}

function listTyped(dir: string): Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
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

/** Parses an ignore file, if it is a regular file (a FIFO named .gitignore must not park the thread). */
function loadIgnore(file: string, base: string): IgnoreMatcher | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    return fs.fstatSync(fd).isFile() ? createIgnoreMatcher(fs.readFileSync(fd, 'utf8'), base) : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** An entry of an absolute, normalised directory (plain concatenation: path.join normalises again). */
function under(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

function join(rel: string, name: string): string {
  return rel === '' ? name : `${rel}/${name}`;
}

/** One directory waiting to be read. */
interface Dir {
  abs: string; // logical path (through any followed symlink), for results
  real: string; // where it really is, for the symlink checks
  rel: string; // relative to the glob root, for the pattern
  ignoreRel: string; // relative to the ignore base, for .gitignore rules
  depth: number;
  stack: readonly IgnoreMatcher[];
}

/**
 * Finds files under `rootReal` (an already-checked real directory) whose path relative to it
 * matches `pattern` (dotfiles included). Results are relative to the project directory (absolute
 * when outside it), newest first; when the cap is hit the first `limit` matches found are returned
 * with `truncated: true`. Errors: `invalid_input` for an empty, absolute, `..` or malformed pattern.
 */
export function globSync(rootReal: string, pattern: string, options: GlobWalkOptions): FsGlobResult {
  const plan = planGlob(pattern);
  const limit = options.limit ?? DEFAULT_GLOB_LIMIT;
  const scanLimit = options.scanLimit ?? DEFAULT_GLOB_SCAN_LIMIT;
  const projectReal = realOf(options.projectDir) ?? path.resolve(options.projectDir);
  // Roots are compared with real paths, so they must be real too (a project under a symlink).
  const roots = (options.roots ?? [projectReal, rootReal]).map((r) => realOf(r) ?? path.resolve(r));
  // Paths below the project lose its prefix (path.relative's answer, without normalising each again).
  const inside = projectReal === '/' ? '/' : `${projectReal}/`;
  const display = (abs: string) =>
    abs === projectReal ? '.' : abs.startsWith(inside) ? abs.slice(inside.length) : abs;
  const result: FsGlobResult = { root: display(rootReal), files: [], truncated: false };

  // Ignore rules live relative to the project when the root is inside it, else to the root.
  const ignoreBase = isInside(rootReal, [projectReal]) ? projectReal : rootReal;
  const stack: IgnoreMatcher[] = [];
  if (ignoreBase === projectReal) {
    const exclude = loadIgnore(path.join(projectReal, '.git', 'info', 'exclude'), '');
    if (exclude) stack.push(exclude);
  }
  const startLogical = path.join(rootReal, ...plan.prefix);
  // .gitignore files of the directories above the walk's start still apply to what is below it.
  const above = path.relative(ignoreBase, path.dirname(startLogical));
  if (startLogical !== ignoreBase && !above.startsWith('..')) {
    const parts = above === '' ? [] : above.split(path.sep);
    for (let i = 0; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      const matcher = loadIgnore(path.join(ignoreBase, ...parts.slice(0, i), '.gitignore'), rel);
      if (matcher) stack.push(matcher);
    }
  }
  const startReal = realOf(startLogical);
  if (!startReal || !isInside(startReal, roots)) return result;
  if (!statOf(startReal)?.isDirectory()) return result;

  const matches: string[] = [];
  const visited = new Set<string>([startReal]);
  let scanned = 0;
  let stopped = false;

  const visit = (dir: Dir, enqueue: (d: Dir) => void): void => {
    const entries = listTyped(dir.abs);
    let stack = dir.stack;
    if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      const matcher = loadIgnore(path.join(dir.abs, '.gitignore'), dir.ignoreRel);
      if (matcher) stack = [...stack, matcher];
    }
    for (const entry of entries) {
      if (++scanned > scanLimit) {
        result.truncated = true;
        stopped = true;
        return;
      }
      const name = entry.name;
      const abs = under(dir.abs, name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      let childReal: string | undefined;
      if (entry.isSymbolicLink()) {
        const target = statOf(abs);
        if (!target) continue; // dangling
        isDir = target.isDirectory();
        isFile = target.isFile();
        if (isDir) {
          const real = realOf(abs);
          // Never out of the roots, never back into an ancestor (a cycle), never twice.
          if (!real || !isInside(real, roots) || isInside(dir.real, [real]) || visited.has(real)) continue;
          visited.add(real);
          childReal = real;
        }
      }
      const rel = join(dir.rel, name);
      const ignoreRel = join(dir.ignoreRel, name);
      if (isDir) {
        if (dir.depth + 1 >= plan.maxDepth) continue;
        // `.git` and `node_modules` are skipped unless the pattern names them, and then they are
        // walked even though a .gitignore usually lists node_modules.
        const skip = ALWAYS_SKIPPED.has(name) ? !plan.named.has(name) : isIgnored(stack, ignoreRel, true);
        if (skip) continue;
        enqueue({
          abs,
          real: childReal ?? under(dir.real, name),
          rel,
          ignoreRel,
          depth: dir.depth + 1,
          stack,
        });
      } else if (isFile && plan.regex.test(rel) && !isIgnored(stack, ignoreRel, false)) {
        if (matches.length >= limit) {
          result.truncated = true;
          stopped = true;
          return;
        }
        matches.push(abs);
      }
    }
  };

  const queue: Dir[] = [
    {
      abs: startLogical,
      real: startReal,
      rel: plan.prefix.join('/'),
      ignoreRel: path.relative(ignoreBase, startLogical).split(path.sep).join('/'),
      depth: plan.prefix.length,
      stack,
    },
  ];
  const enqueue = (d: Dir) => {
    queue.push(d);
  };
  while (queue.length > 0 && !stopped) visit(queue.pop() as Dir, enqueue);

  if (options.sort === 'path') {
    result.files = matches.sort().map(display);
    return result;
  }
  const order = matches.map((abs) => ({ abs, mtime: mtimeOf(abs) }));
  order.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : a.abs > b.abs ? 1 : 0));
  result.files = order.map((m) => display(m.abs));
  return result;
}
