// Parses .gitignore files into matchers and answers "is this path ignored" for a stack of them,
// with git's precedence: within one file the last matching line wins, a deeper file overrides a
// shallower one, and `.git/info/exclude` sits below every .gitignore.
import { globToRegExp } from '../../shared/glob.js';

/** One parsed .gitignore line. */
export interface IgnoreRule {
  /** The line as written (trimmed), for diagnostics. */
  source: string;
  /** Matches a path relative to the directory holding the .gitignore. */
  regex: RegExp;
  /** A `!` line: re-includes what an earlier line excluded. */
  negate: boolean;
  /** A trailing `/`: matches directories only. */
  dirOnly: boolean;
}

/** The rules of one .gitignore file and the directory they apply to. */
export interface IgnoreMatcher {
  /** The .gitignore's directory, `/`-separated and relative to the walk's base ('' = the base). */
  base: string;
  rules: IgnoreRule[];
}

/** Removes trailing spaces unless escaped with a backslash (git's rule). */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end--;
  return line.slice(0, end);
}

/** Parses one line; undefined for blanks, comments and lines that cannot compile. */
export function parseIgnoreLine(raw: string): IgnoreRule | undefined {
  let line = trimTrailingSpaces(raw.replace(/\r$/, ''));
  if (line === '' || line.startsWith('#')) return undefined;
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith('/') && !line.endsWith('\\/')) {
    dirOnly = true;
    line = line.replace(/\/+$/, '');
  }
  if (line === '') return undefined;
  // A slash at the start or in the middle anchors the pattern to the .gitignore's directory;
  // otherwise it matches a name at any depth below it.
  const anchored = line.includes('/');
  const body = line.startsWith('/') ? line.slice(1) : line;
  const glob = anchored ? body : `**/${body}`;
  try {
    return { source: raw.trim(), regex: globToRegExp(glob, { dot: true }), negate, dirOnly };
  } catch {
    return undefined; // git skips lines it cannot use; so do we
  }
}

/** Parses a whole .gitignore (or info/exclude) file. */
export function parseGitignore(content: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const line of content.split('\n')) {
    const rule = parseIgnoreLine(line);
    if (rule) rules.push(rule);
  }
  return rules;
}

/** Builds a matcher for the .gitignore found in `base` (relative to the walk's base). */
export function createIgnoreMatcher(content: string, base = ''): IgnoreMatcher {
  return { base: base.replace(/^\/+|\/+$/g, ''), rules: parseGitignore(content) };
}

/**
 * What one matcher says about a path: 'ignored', 'included' (a negation matched last), or
 * undefined when no line matches or the path is outside the matcher's directory.
 */
export function testIgnore(
  matcher: IgnoreMatcher,
  relPath: string,
  isDir: boolean,
): 'ignored' | 'included' | undefined {
  let sub = relPath;
  if (matcher.base !== '') {
    if (!relPath.startsWith(`${matcher.base}/`)) return undefined;
    sub = relPath.slice(matcher.base.length + 1);
  }
  for (let i = matcher.rules.length - 1; i >= 0; i--) {
    const rule = matcher.rules[i];
    if (!rule || (rule.dirOnly && !isDir)) continue;
    if (rule.regex.test(sub)) return rule.negate ? 'included' : 'ignored';
  }
  return undefined;
}

/**
 * True when `relPath` is ignored by a stack of matchers ordered shallowest first (put
 * `.git/info/exclude` first of all). The deepest matcher with an opinion decides. Callers walk
 * top-down and never enter an ignored directory, which gives git's rule that a file inside an
 * excluded directory cannot be re-included.
 */
export function isIgnored(stack: readonly IgnoreMatcher[], relPath: string, isDir: boolean): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const matcher = stack[i];
    if (!matcher) continue;
    const verdict = testIgnore(matcher, relPath, isDir);
    if (verdict !== undefined) return verdict === 'ignored';
  }
  return false;
}
