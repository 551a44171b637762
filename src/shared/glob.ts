// Glob patterns compiled to anchored regular expressions, shared by the host (file walks, policy
// rules, gitignore) and the worker (Grep's glob filter). Pure: no I/O, no node imports.
//
// Supported: `*` (within a segment), `**` (any number of segments, only as a whole segment),
// `?`, `[abc]` / `[a-z]` / `[!x]` / `[^x]`, `{a,b}` (nestable), and `\` escaping the next char.
// No wildcard ever matches `/`, except `**`. Paths use `/` separators.

/** Options for compiling a glob. */
export interface GlobOptions {
  /** Let wildcards match a leading `.` in a segment (default false, as in shells). */
  dot?: boolean;
  /** Case-insensitive matching (default false). */
  nocase?: boolean;
}

/** Brace expansion is exponential in the number of groups; past this many alternatives we refuse. */
const MAX_EXPANSIONS = 1024;

/** Expands `{a,b}` groups (nested too) into plain patterns. A `{` with no top-level comma is literal. */
export function expandBraces(pattern: string): string[] {
  const open = findBraceGroup(pattern);
  if (!open) return [pattern];
  const { start, end, parts } = open;
  const head = pattern.slice(0, start);
  const tail = pattern.slice(end + 1);
  const out: string[] = [];
  for (const part of parts) {
    for (const expanded of expandBraces(head + part + tail)) {
      out.push(expanded);
      if (out.length > MAX_EXPANSIONS)
        throw new Error(`glob "${pattern}" expands to more than ${MAX_EXPANSIONS} patterns`);
    }
  }
  return out;
}

/** Finds the first `{...}` group with a top-level comma, honouring escapes and `[...]` classes. */
function findBraceGroup(pattern: string): { start: number; end: number; parts: string[] } | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const close = classEnd(pattern, i);
      if (close !== -1) i = close;
      continue;
    }
    if (c !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = i; j < pattern.length; j++) {
      const d = pattern[j];
      if (d === '\\') {
        j++;
      } else if (d === '{') {
        depth++;
      } else if (d === '}') {
        depth--;
        if (depth === 0) {
          if (commas.length === 0) break;
          const bounds = [i, ...commas, j];
          const parts = bounds.slice(1).map((b, k) => pattern.slice((bounds[k] ?? i) + 1, b));
          return { start: i, end: j, parts };
        }
      } else if (d === ',' && depth === 1) {
        commas.push(j);
      }
    }
  }
  return undefined;
}

/** Index of the `]` closing a class opened at `start`, or -1 when the `[` is literal. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '!' || pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // a leading `]` is a member, not the end
  for (; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '/') return -1;
    else if (c === ']') return i;
  }
  return -1;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;
function escapeRegex(text: string): string {
  return text.replace(REGEX_SPECIAL, '\\$&');
}

/** Compilation state: capture groups are numbered across the whole regex. */
interface Ctx {
  groups: number;
  noDot: string;
}

/**
 * An atomic "leftmost match of `inner`" (JS has no atomic groups; a lookahead capture plus a
 * backreference is the standard stand-in). Used wherever a wildcard is followed by a fixed-width
 * piece and then another wildcard: committing to the leftmost occurrence never loses a match
 * there, and it keeps patterns like `*a*a*a*b` linear instead of exponential in backtracking.
 */
function atomic(ctx: Ctx, build: () => string): string {
  const n = ++ctx.groups;
  const inner = build();
  return `(?=(${inner}))(?:\\${n})`;
}

/** Compiles one brace-free pattern to a regex source (no anchors). */
function compileSegments(pattern: string, ctx: Ctx): string {
  // `a/**/**/b` means the same as `a/**/b`.
  const segments = pattern.split('/').filter((seg, i, all) => !(seg === '**' && all[i - 1] === '**'));
  const segment = `${ctx.noDot}[^/]+`;
  if (segments.length === 1 && segments[0] === '**') return `${segment}(?:/${segment})*`;
  // A trailing `/**` matches the directory itself and everything below it.
  const trailing = segments.length > 1 && segments[segments.length - 1] === '**';
  const body = trailing ? segments.slice(0, -1) : segments;
  let out = '';
  for (let i = 0; i < body.length;) {
    const seg = body[i] ?? '';
    if (seg !== '**') {
      out += compileSegment(seg, ctx) + (i === body.length - 1 ? '' : '/');
      i++;
      continue;
    }
    const next = body.indexOf('**', i + 1);
    if (next === -1) {
      out += `(?:${segment}/)*`; // zero or more whole directories
      i++;
      continue;
    }
    // Another `**` follows: commit to the leftmost run of the segments in between.
    out += atomic(
      ctx,
      () =>
        `(?:${segment}/)*?${body
          .slice(i + 1, next)
          .map((s) => `${compileSegment(s, ctx)}/`)
          .join('')}`,
    );
    i = next;
  }
  return trailing ? `${out}(?:/${segment})*` : out;
}

/** One segment split at its stars: fixed-width pieces, and whether it starts with a wildcard. */
function tokenize(seg: string): { pieces: string[]; wildStart: boolean } {
  const pieces: string[] = [''];
  let wildStart = false;
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i] ?? '';
    const atStart = i === 0;
    let atom: string;
    if (c === '\\') {
      const next = seg[i + 1];
      atom = next === undefined ? '\\\\' : escapeRegex(next);
      i++;
    } else if (c === '*') {
      while (seg[i + 1] === '*') i++; // `a**b` is just `a*b`
      if (atStart) wildStart = true;
      pieces.push('');
      continue;
    } else if (c === '?') {
      atom = '[^/]';
      if (atStart) wildStart = true;
    } else if (c === '[' && classEnd(seg, i) !== -1) {
      const close = classEnd(seg, i);
      let body = seg.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      const cls = body.replace(/\\(.)/g, '$1').replace(/[\\\]^]/g, '\\$&');
      atom = negate ? `[^/${cls}]` : `[${cls}]`;
      if (atStart) wildStart = true;
      i = close;
    } else {
      atom = escapeRegex(c);
    }
    pieces[pieces.length - 1] += atom;
  }
  return { pieces, wildStart };
}

/** Compiles one path segment (no `/`). */
function compileSegment(seg: string, ctx: Ctx): string {
  const { pieces, wildStart } = tokenize(seg);
  let out = (wildStart ? ctx.noDot : '') + (pieces[0] ?? '');
  const last = pieces.length - 1;
  for (let k = 1; k < last; k++) out += atomic(ctx, () => `[^/]*?${pieces[k] ?? ''}`);
  if (last > 0) out += `[^/]*${pieces[last] ?? ''}`;
  return out;
}

/** Compiles a glob to an anchored RegExp matched against a whole `/`-separated relative path. */
export function globToRegExp(pattern: string, options: GlobOptions = {}): RegExp {
  const ctx: Ctx = { groups: 0, noDot: options.dot ? '' : '(?!\\.)' };
  const sources = expandBraces(pattern).map((p) => compileSegments(p, ctx));
  const source = sources.length === 1 ? (sources[0] ?? '') : sources.map((s) => `(?:${s})`).join('|');
  return new RegExp(`^(?:${source})$`, options.nocase ? 'i' : '');
}

/** True when the pattern contains any glob syntax (otherwise it names one path literally). */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?[\]{}\\]/.test(pattern);
}

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 512;

/** Tests a `/`-separated path against a glob (compiled regexes are cached). */
export function matchGlob(path: string, pattern: string, options: GlobOptions = {}): boolean {
  const key = `${options.dot ? 'd' : '-'}${options.nocase ? 'i' : '-'}${pattern}`;
  let regex = cache.get(key);
  if (!regex) {
    regex = globToRegExp(pattern, options);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, regex);
  }
  return regex.test(path);
}
