// Parses .gitignore files into matchers and answers "is this path ignored" for a stack of them,
// with git's precedence: within one file the last matching line wins, a deeper file overrides a
// shallower one, and `.git/info/exclude` sits below every .gitignore. A model can write any
// .gitignore it likes, so parsing can be capped and every rule test can be counted (the walk charges
// them against its work limit).
import { expandBraces, globToRegExp } from '../../shared/glob.js';

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
  /** What one test of `regex` costs, in alternatives tried (`{a,b}` groups multiply them). */
  cost: number;
}

/** The rules of one .gitignore file and the directory they apply to. */
export interface IgnoreMatcher {
  /** The .gitignore's directory, `/`-separated and relative to the walk's base ('' = the base). */
  base: string;
  rules: IgnoreRule[];
  /** Rules left out past the cap `createIgnoreMatcher` was given. */
  dropped: number;
}

/** Counts rule tests (weighted by each rule's `cost`) for a caller that bounds its work. */
export interface RuleTests {
  tests: number;
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
    const regex = globToRegExp(glob, { dot: true });
    const cost = glob.includes('{') ? expandBraces(glob).length : 1;
    return { source: raw.trim(), regex, negate, dirOnly, cost };
  } catch {
    return undefined; // git skips lines it cannot use; so do we
  }
}

/** Parses a whole .gitignore (or info/exclude) file, keeping its first `maxRules` rules. */
function parseCapped(content: string, maxRules: number): { rules: IgnoreRule[]; dropped: number } {
  const rules: IgnoreRule[] = [];
  let dropped = 0;
  for (const line of content.split('\n')) {
    if (rules.length >= maxRules) {
      // Past the cap nothing is compiled: a line only counts if it would have been a rule.
      const trimmed = line.trim();
      if (trimmed !== '' && !trimmed.startsWith('#')) dropped++;
      continue;
    }
    const rule = parseIgnoreLine(line);
    if (rule) rules.push(rule);
  }
  return { rules, dropped };
}

/** Parses a whole .gitignore (or info/exclude) file. */
export function parseGitignore(content: string): IgnoreRule[] {
  return parseCapped(content, Infinity).rules;
}

/**
 * Builds a matcher for the .gitignore found in `base` (relative to the walk's base), with at most
 * `maxRules` rules: the first ones, as git would read them; `dropped` counts the rest.
 */
export function createIgnoreMatcher(content: string, base = '', maxRules = Infinity): IgnoreMatcher {
  const { rules, dropped } = parseCapped(content, maxRules);
  return { base: base.replace(/^\/+|\/+$/g, ''), rules, dropped };
}

/**
 * What one matcher says about a path: 'ignored', 'included' (a negation matched last), or
 * undefined when no line matches or the path is outside the matcher's directory. Each rule tested
 * is added to `counted`.
 */
export function testIgnore(
  matcher: IgnoreMatcher,
  relPath: string,
  isDir: boolean,
  counted?: RuleTests,
): 'ignored' | 'included' | undefined {
  let sub = relPath;
  if (matcher.base !== '') {
    if (!relPath.startsWith(`${matcher.base}/`)) return undefined;
    sub = relPath.slice(matcher.base.length + 1);
  }
  let cost = 0;
  let verdict: 'ignored' | 'included' | undefined;
  for (let i = matcher.rules.length - 1; i >= 0; i--) {
    const rule = matcher.rules[i];
    if (!rule || (rule.dirOnly && !isDir)) continue;
    cost += rule.cost;
    if (rule.regex.test(sub)) {
      verdict = rule.negate ? 'included' : 'ignored';
      break;
    }
  }
  if (counted) counted.tests += cost;
  return verdict;
}

/**
 * True when `relPath` is ignored by a stack of matchers ordered shallowest first (put
 * `.git/info/exclude` first of all). The deepest matcher with an opinion decides. Callers walk
 * top-down and never enter an ignored directory, which gives git's rule that a file inside an
 * excluded directory cannot be re-included. Rule tests are added to `counted`.
 */
export function isIgnored(
  stack: readonly IgnoreMatcher[],
  relPath: string,
  isDir: boolean,
  counted?: RuleTests,
): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const matcher = stack[i];
    if (!matcher) continue;
    const verdict = testIgnore(matcher, relPath, isDir, counted);
    if (verdict !== undefined) return verdict === 'ignored';
  }
  return false;
}
