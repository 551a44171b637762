// Which guarded paths a shell glob could match, without listing a directory: for each segment of
// the glob, the names of guarded paths (sensitive names, protected paths, the paths deny rules
// name) that it matches, each found as a witness string both patterns accept. The caller then
// checks the concrete candidates with the usual sensitive, protected and rule checks. Bash's glob
// syntax here: `*`, `?`, `[...]` (with `!`/`^` negation and ranges) and `\` escapes; `*` and `?`
// do not match a leading `.` unless dotglob may be on.

export type Token =
  | { kind: 'char'; ch: string }
  | { kind: 'any' }
  | { kind: 'set'; negated: boolean; members: string; ranges: [string, string][] }
  | { kind: 'star' };

/** Splits one segment pattern into tokens. */
export function globTokens(pattern: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) out.push({ kind: 'char', ch: pattern[++i] as string });
    else if (c === '*') {
      if (out[out.length - 1]?.kind !== 'star') out.push({ kind: 'star' });
    } else if (c === '?') out.push({ kind: 'any' });
    else if (c === '[') {
      const set = readSet(pattern, i);
      if (set) {
        out.push(set.token);
        i = set.end;
      } else out.push({ kind: 'char', ch: c });
    } else out.push({ kind: 'char', ch: c });
  }
  return out;
}

function readSet(p: string, start: number): { token: Token; end: number } | undefined {
  let i = start + 1;
  const negated = p[i] === '!' || p[i] === '^';
  if (negated) i++;
  let members = '';
  const ranges: [string, string][] = [];
  let first = true;
  for (; i < p.length; i++) {
    let c = p[i] as string;
    if (c === ']' && !first) return { token: { kind: 'set', negated, members, ranges }, end: i };
    first = false;
    if (c === '[' && p[i + 1] === ':') {
      const close = p.indexOf(':]', i + 2);
      if (close === -1) return undefined;
      // A character class: read as "any character" (more candidates, never fewer).
      ranges.push(['\u0000', '\uffff']);
      i = close + 1;
      continue;
    }
    if (c === '\\' && i + 1 < p.length) c = p[++i] as string;
    if (p[i + 1] === '-' && p[i + 2] !== undefined && p[i + 2] !== ']') {
      ranges.push([c, p[i + 2] as string]);
      i += 2;
    } else members += c;
  }
  return undefined;
}

function inSet(t: Token & { kind: 'set' }, ch: string): boolean {
  const hit = t.members.includes(ch) || t.ranges.some(([a, b]) => ch >= a && ch <= b);
  return t.negated ? !hit : hit;
}

function accepts(t: Token, ch: string): boolean {
  if (ch === '/') return false;
  if (t.kind === 'char') return t.ch === ch;
  if (t.kind === 'set') return inSet(t, ch);
  return true;
}

/** Characters worth trying where two tokens must agree. */
function choices(a: Token, b: Token): string[] {
  const out: string[] = [];
  for (const t of [a, b]) {
    if (t.kind === 'char') out.push(t.ch);
    if (t.kind === 'set') out.push(...t.members);
  }
  out.push('x', 'a', '0', '_', '-', '.');
  for (const t of [a, b]) if (t.kind === 'set') out.push(...t.ranges.map(([lo]) => lo));
  return out;
}

interface Options {
  /** `a` (the shell glob) may not match a leading `.` unless it starts with one. */
  shellDot: boolean;
}

/**
 * A string matched by both segment patterns, or undefined when none is. `a` is read as a shell
 * glob (leading-dot rule, unless `shellDot` is false), `b` as a path rule's segment.
 */
export function globWitness(a: Token[], b: Token[], options: Options): string | undefined {
  const noDot = options.shellDot && !(a[0]?.kind === 'char' && a[0].ch === '.');
  // Breadth-first over (position in a, position in b, characters emitted so far > 0).
  type State = { i: number; j: number; text: string };
  const seen = new Set<string>();
  const queue: State[] = [{ i: 0, j: 0, text: '' }];
  while (queue.length > 0) {
    const s = queue.shift() as State;
    const key = `${s.i},${s.j},${s.text.length > 0 ? 1 : 0}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // A segment is never empty: a name both accept has at least one character.
    if (s.i === a.length && s.j === b.length && s.text !== '') return s.text;
    const ta = a[s.i];
    const tb = b[s.j];
    if (ta?.kind === 'star') queue.push({ i: s.i + 1, j: s.j, text: s.text });
    if (tb?.kind === 'star') queue.push({ i: s.i, j: s.j + 1, text: s.text });
    if (!ta || !tb) continue;
    const ok = (ch: string) => accepts(ta, ch) && accepts(tb, ch) && !(noDot && s.text === '' && ch === '.');
    const ch = choices(ta, tb).find(ok);
    if (ch === undefined) continue;
    queue.push({
      i: ta.kind === 'star' ? s.i : s.i + 1,
      j: tb.kind === 'star' ? s.j : s.j + 1,
      text: s.text + ch,
    });
  }
  return undefined;
}

/** True when the pattern has a glob character outside escapes. */
export function hasGlob(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '*' || c === '?' || c === '[') return true;
  }
  return false;
}

/** The pattern with its escapes removed (for a pattern without glob characters). */
export function unescapeGlob(pattern: string): string {
  return pattern.includes('\\') ? pattern.replace(/\\(.)/g, '$1') : pattern;
}

const MAX_PER_SEGMENT = 64;
const MAX_CANDIDATES = 1024;

/**
 * Concrete paths to check for an absolute glob `pattern` (segments split on `/`): every segment
 * with a glob character becomes the names of `vocabulary` it can match, plus one plain name it
 * matches. Undefined when there are too many combinations to check (the caller then asks).
 */
export function globCandidates(
  pattern: string,
  vocabulary: readonly string[],
  dotglob: boolean,
): string[] | undefined {
  const vocab = vocabulary.map((v) => ({ v, tokens: globTokens(v) }));
  let paths: string[] = [''];
  const segments = pattern.split('/');
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k] as string;
    let names: string[];
    if (!hasGlob(seg)) names = [unescapeGlob(seg)];
    else {
      const tokens = globTokens(seg);
      const found = new Set<string>();
      for (const { tokens: vt } of vocab) {
        const w = globWitness(tokens, vt, { shellDot: !dotglob });
        if (w !== undefined) found.add(w);
        if (found.size > MAX_PER_SEGMENT) return undefined;
      }
      const plain = globWitness(tokens, [{ kind: 'star' }], { shellDot: !dotglob });
      if (plain !== undefined) found.add(plain);
      names = [...found];
    }
    const next: string[] = [];
    for (const p of paths) for (const n of names) next.push(k === 0 ? n : `${p}/${n}`);
    if (next.length > MAX_CANDIDATES) return undefined;
    paths = next;
  }
  return paths;
}

/**
 * The ways one segment pattern matches `text` (a name it is known to match), each as the positions
 * of `text` that the pattern's literal characters take: `a*` matches `a.env` only with `a` from the
 * pattern, `*s*` matches `sass` three ways. Undefined when there are more than `limit` ways.
 */
export function literalPositions(tokens: Token[], text: string, limit = 16): number[][] | undefined {
  const n = tokens.length;
  const m = text.length;
  // can[i][j]: tokens from i on match text from j on.
  const can = Array.from({ length: n + 1 }, () => new Array<boolean>(m + 1).fill(false));
  (can[n] as boolean[])[m] = true;
  for (let i = n - 1; i >= 0; i--) {
    const t = tokens[i] as Token;
    const row = can[i] as boolean[];
    const next = can[i + 1] as boolean[];
    for (let j = m; j >= 0; j--) {
      row[j] =
        t.kind === 'star'
          ? (next[j] as boolean) || (j < m && text[j] !== '/' && (row[j + 1] as boolean))
          : j < m && accepts(t, text[j] as string) && (next[j + 1] as boolean);
    }
  }
  const found = new Map<string, number[]>();
  const taken: number[] = [];
  // Walks only into states that can still finish, so each step leads to at least one way.
  const walk = (i: number, j: number): boolean => {
    if (i === n) {
      found.set(taken.join(','), [...taken]);
      return found.size <= limit;
    }
    const t = tokens[i] as Token;
    if (t.kind === 'star') {
      for (let k = j; k <= m; k++) {
        if (k > j && text[k - 1] === '/') break;
        if ((can[i + 1] as boolean[])[k] && !walk(i + 1, k)) return false;
      }
      return true;
    }
    if (t.kind === 'char') taken.push(j);
    const ok = walk(i + 1, j + 1);
    if (t.kind === 'char') taken.pop();
    return ok;
  };
  if (!(can[0] as boolean[])[0]) return [];
  return walk(0, 0) ? [...found.values()] : undefined;
}

/** One character a token accepts, other than a leading dot where `noDot` holds. */
export function acceptedChar(t: Token, noDot: boolean): string | undefined {
  const tries =
    t.kind === 'char'
      ? [t.ch]
      : ['q', 'x', '0', '_', '-', ...(t.kind === 'set' ? [...t.members, ...t.ranges.map(([lo]) => lo)] : [])];
  return tries.find((ch) => accepts(t, ch) && !(noDot && ch === '.'));
}
