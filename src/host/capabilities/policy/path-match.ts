// Path facts for the policy: which root holds a path (the jail), and whether a rule's path
// specifier matches it. Specifiers follow gitignore's reading, as Claude Code's do: a pattern
// without a slash matches a name at any depth, one with a slash is anchored at the project, and a
// pattern that matches a directory matches everything below it.
import path from 'node:path';
import { matchGlob } from '../../../shared/glob.js';

/** Where rules are anchored. All paths absolute, real and `/`-separated. */
export interface PathContext {
  projectDir: string;
  extraRoots: readonly string[];
  homeDir?: string;
}

/** Strips trailing slashes (but keeps `/`). */
export function normalizeRoot(root: string): string {
  // Most paths arrive already normal (path.resolve's output): skip the work for them.
  if (
    root.length > 1 &&
    root.startsWith('/') &&
    !root.endsWith('/') &&
    !root.includes('//') &&
    !root.includes('/.')
  )
    return root;
  const n = path.posix.normalize(root);
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

/** True when `p` is `root` or below it (both absolute and normalised). */
export function isUnder(p: string, root: string): boolean {
  if (p === root || root === '/') return true;
  // `p.startsWith(root + '/')` without building that string (Grep judges thousands of paths).
  return p.length > root.length && p.charCodeAt(root.length) === 47 && p.startsWith(root);
}

/** The root (project first, then extra roots) that holds `p`, if any. */
export function rootOf(p: string, ctx: PathContext): string | undefined {
  if (isUnder(p, ctx.projectDir)) return ctx.projectDir;
  return ctx.extraRoots.find((root) => isUnder(p, root));
}

/** `p` relative to the root holding it (`''` for the root itself), or undefined outside every root. */
export function relativeToRoot(p: string, ctx: PathContext): string | undefined {
  const root = rootOf(p, ctx);
  if (root === undefined) return undefined;
  if (p === root) return '';
  return root === '/' ? p.slice(1) : p.slice(root.length + 1);
}

/** A specifier turned into patterns: absolute ones match absolute paths, relative ones root-relative paths. */
interface Targets {
  absolute: string[];
  relative: string[];
}

const targetCache = new Map<string, Targets>();

function targetsOf(spec: string, ctx: PathContext): Targets {
  const key = `${ctx.projectDir}\0${ctx.homeDir ?? ''}\0${spec}`;
  const hit = targetCache.get(key);
  if (hit) return hit;
  const t: Targets = { absolute: [], relative: [] };
  let s = spec.replace(/\/+$/, '');
  if (s === '') s = spec.startsWith('/') ? '/' : '.';
  if (s.startsWith('//')) {
    t.absolute.push(s.slice(1));
  } else if (s === '~' || s.startsWith('~/')) {
    if (ctx.homeDir !== undefined) t.absolute.push(path.posix.join(ctx.homeDir, s.slice(1)));
  } else if (s.startsWith('/')) {
    // Claude Code anchors `/x` at the settings' project; an absolute reading is also natural. Both count.
    t.absolute.push(s);
    t.relative.push(s.slice(1));
  } else if (s === '.' || s === '..' || s.startsWith('./') || s.startsWith('../')) {
    const joined = path.posix.join(ctx.projectDir, s);
    if (isUnder(joined, ctx.projectDir))
      t.relative.push(joined === ctx.projectDir ? '' : joined.slice(ctx.projectDir.length + 1));
    else t.absolute.push(joined);
  } else if (s.includes('/')) {
    t.relative.push(s);
  } else {
    t.relative.push(`**/${s}`);
  }
  if (targetCache.size > 2048) targetCache.clear();
  targetCache.set(key, t);
  return t;
}

function globMatch(candidate: string, pattern: string): boolean {
  try {
    return matchGlob(candidate, pattern, { dot: true });
  } catch {
    return false;
  }
}

/** `p` and each of its ancestors, nearest first (within `stop` when given). */
function withAncestors(p: string, absolute: boolean): string[] {
  const out = [p];
  let cur = p;
  for (;;) {
    const i = cur.lastIndexOf('/');
    if (i < 0) break;
    cur = cur.slice(0, i);
    if (cur === '' && absolute) {
      out.push('/');
      break;
    }
    if (cur === '') break;
    out.push(cur);
  }
  return out;
}

/** True when a path specifier matches the absolute path `p` (or a directory above it). */
export function matchPathSpec(spec: string, p: string, ctx: PathContext): boolean {
  const targets = targetsOf(spec, ctx);
  if (targets.absolute.length > 0) {
    for (const candidate of withAncestors(p, true)) {
      if (targets.absolute.some((pattern) => pattern === candidate || globMatch(candidate, pattern)))
        return true;
    }
  }
  if (targets.relative.length > 0) {
    const rel = relativeToRoot(p, ctx);
    if (rel === undefined) return false;
    const candidates = rel === '' ? [''] : withAncestors(rel, false);
    for (const candidate of candidates) {
      if (
        targets.relative.some(
          (pattern) => pattern === candidate || (candidate !== '' && globMatch(candidate, pattern)),
        )
      )
        return true;
    }
  }
  return false;
}

/** A short form of `p` for messages and suggested rules: relative to its root, else absolute. */
export function displayPath(p: string, ctx: PathContext): string {
  if (!isUnder(p, ctx.projectDir)) return p;
  const rel =
    p === ctx.projectDir ? '' : ctx.projectDir === '/' ? p.slice(1) : p.slice(ctx.projectDir.length + 1);
  return rel === '' ? '.' : rel;
}

/** The form of `p` a rule would use: project-relative, or `//absolute` outside the project. */
export function ruleSpecFor(p: string, ctx: PathContext): string {
  const shown = displayPath(p, ctx);
  return shown.startsWith('/') ? `/${shown}` : shown;
}
