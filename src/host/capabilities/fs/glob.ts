// Finds files matching a glob under one root for the Glob tool: a gitignore-aware parallel walk
// that skips `.git`, `node_modules` and `.cadre`, never leaves the allowed roots through a symlink, stops at
// a cap, and returns the newest files first.
import { readdir as readdirCb, stat as statCb, type Dirent } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FsGlobResult } from '../../../shared/capabilities.js';
import { CadreError } from '../../../shared/errors.js';
import { expandBraces, globToRegExp, hasGlobSyntax } from '../../../shared/glob.js';
import { createIgnoreMatcher, isIgnored, type IgnoreMatcher } from '../gitignore.js';
import { isInside } from '../paths.js';
import { mapLimit } from './concurrency.js';

/** Default cap on matches. */
export const DEFAULT_GLOB_LIMIT = 10_000;
/** Cap on directory entries looked at, so `**` over a huge tree still ends in bounded time. */
export const DEFAULT_GLOB_SCAN_LIMIT = 1_000_000;
/** Directories never walked unless the pattern names them. */
// .cadre holds transcripts and the audit log: other runs' conversations are not search material.
const ALWAYS_SKIPPED = new Set(['.git', 'node_modules', '.cadre']);
const PARALLEL_DIRS = 16;
const PARALLEL_STATS = 64;

/** Options of `glob`. */
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

/** What the pattern implies for the walk. */
interface Plan {
  regex: RegExp;
  /** Leading literal directories: the walk starts there; naming them explicitly bypasses ignore rules. */
  prefix: string[];
  /** Literal segments anywhere in the pattern: naming node_modules or .git lets the walk enter them. */
  named: Set<string>;
  /** Deepest match possible, in segments below the root (Infinity with `**`). */
  maxDepth: number;
}

/** Validates a pattern and derives the walk plan. Throws `invalid_input`. */
export function planGlob(rawPattern: string): Plan {
  const pattern = rawPattern.replace(/^(\.\/)+/, '');
  if (pattern === '') throw new CadreError('invalid_input', 'the glob pattern is empty');
  if (pattern.startsWith('/')) {
    throw new CadreError(
      'invalid_input',
      `glob "${rawPattern}" is absolute; pass the directory as path and a relative pattern`,
    );
  }
  let expansions: string[];
  let regex: RegExp;
  try {
    expansions = expandBraces(pattern);
    regex = globToRegExp(pattern, { dot: true });
  } catch (error) {
    throw new CadreError('invalid_input', `bad glob "${rawPattern}": ${(error as Error).message}`);
  }
  const named = new Set<string>();
  let maxDepth = 0;
  for (const expansion of expansions) {
    const segments = expansion.split('/');
    if (segments.includes('..'))
      throw new CadreError('invalid_input', `glob "${rawPattern}" may not contain ".." segments`);
    maxDepth = segments.includes('**') ? Infinity : Math.max(maxDepth, segments.length);
    for (const seg of segments) if (!hasGlobSyntax(seg)) named.add(seg);
  }
  const segments = pattern.split('/');
  const prefix: string[] = [];
  for (const seg of segments.slice(0, -1)) {
    if (hasGlobSyntax(seg) || seg === '.' || seg === '') break;
    prefix.push(seg);
  }
  return { regex, prefix, named, maxDepth };
}

// The walk's hot calls use node's callback API: for tens of thousands of small calls it costs
// about a third of what the promise API does (measured: 20,000 stats in ~60 ms vs ~160 ms).
function listTyped(dir: string): Promise<Dirent[]> {
  return new Promise((resolve) =>
    readdirCb(dir, { withFileTypes: true }, (error, entries) => resolve(error ? [] : entries)),
  );
}
function mtimeOf(file: string): Promise<number> {
  return new Promise((resolve) => statCb(file, (error, st) => resolve(error ? 0 : st.mtimeMs)));
}

async function loadIgnore(file: string, base: string): Promise<IgnoreMatcher | undefined> {
  const content = await readFile(file, 'utf8').catch(() => undefined);
  return content === undefined ? undefined : createIgnoreMatcher(content, base);
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
export async function glob(
  rootReal: string,
  pattern: string,
  options: GlobWalkOptions,
): Promise<FsGlobResult> {
  const plan = planGlob(pattern);
  const limit = options.limit ?? DEFAULT_GLOB_LIMIT;
  const scanLimit = options.scanLimit ?? DEFAULT_GLOB_SCAN_LIMIT;
  const projectReal = await realpath(options.projectDir).catch(() => path.resolve(options.projectDir));
  // Roots are compared with real paths, so they must be real too (a project under a symlink).
  const roots = await Promise.all(
    (options.roots ?? [projectReal, rootReal]).map((r) => realpath(r).catch(() => path.resolve(r))),
  );
  const display = (abs: string) =>
    isInside(abs, [projectReal]) ? path.relative(projectReal, abs) || '.' : abs;
  const result: FsGlobResult = { root: display(rootReal), files: [], truncated: false };

  // Ignore rules live relative to the project when the root is inside it, else to the root.
  const ignoreBase = isInside(rootReal, [projectReal]) ? projectReal : rootReal;
  const stack: IgnoreMatcher[] = [];
  if (ignoreBase === projectReal) {
    const exclude = await loadIgnore(path.join(projectReal, '.git', 'info', 'exclude'), '');
    if (exclude) stack.push(exclude);
  }
  const startLogical = path.join(rootReal, ...plan.prefix);
  // .gitignore files of the directories above the walk's start still apply to what is below it.
  const above = path.relative(ignoreBase, path.dirname(startLogical));
  if (startLogical !== ignoreBase && !above.startsWith('..')) {
    const parts = above === '' ? [] : above.split(path.sep);
    for (let i = 0; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      const matcher = await loadIgnore(path.join(ignoreBase, ...parts.slice(0, i), '.gitignore'), rel);
      if (matcher) stack.push(matcher);
    }
  }
  const startReal = await realpath(startLogical).catch(() => undefined);
  if (!startReal || !isInside(startReal, roots)) return result;
  const startStat = await stat(startReal).catch(() => undefined);
  if (!startStat?.isDirectory()) return result;

  const matches: string[] = [];
  const visited = new Set<string>([startReal]);
  let scanned = 0;
  let stopped = false;

  const visit = async (dir: Dir, enqueue: (d: Dir) => void): Promise<void> => {
    const entries = await listTyped(dir.abs);
    let stack = dir.stack;
    if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      const matcher = await loadIgnore(path.join(dir.abs, '.gitignore'), dir.ignoreRel);
      if (matcher) stack = [...stack, matcher];
    }
    for (const entry of entries) {
      if (stopped) return;
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
        const target = await stat(abs).catch(() => undefined);
        if (!target) continue; // dangling
        isDir = target.isDirectory();
        isFile = target.isFile();
        if (isDir) {
          const real = await realpath(abs).catch(() => undefined);
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

  await walk(
    {
      abs: startLogical,
      real: startReal,
      rel: plan.prefix.join('/'),
      ignoreRel: path.relative(ignoreBase, startLogical).split(path.sep).join('/'),
      depth: plan.prefix.length,
      stack,
    },
    visit,
    () => stopped,
  );

  if (options.sort === 'path') {
    result.files = matches.sort().map(display);
    return result;
  }
  const mtimes = await mapLimit(matches, PARALLEL_STATS, mtimeOf);
  const order = matches.map((abs, i) => ({ abs, mtime: mtimes[i] ?? 0 }));
  order.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : a.abs > b.abs ? 1 : 0));
  result.files = order.map((m) => display(m.abs));
  return result;
}

/** Runs `visit` over a growing queue of directories with bounded parallelism. */
async function walk(
  start: Dir,
  visit: (dir: Dir, enqueue: (d: Dir) => void) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  const queue: Dir[] = [start];
  const enqueue = (d: Dir) => {
    queue.push(d);
  };
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    const pump = () => {
      while (active < PARALLEL_DIRS && queue.length > 0 && !stopped()) {
        const dir = queue.pop() as Dir;
        active++;
        visit(dir, enqueue).then(() => {
          active--;
          pump();
        }, reject);
      }
      if (active === 0) resolve();
    };
    pump();
  });
}
