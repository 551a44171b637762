// What the offline model searches for: one Term per thing the question names, with how much it
// counts, the regex that finds a mention of it in a line, and the names a definition of it would
// give. Identifiers are matched exactly as written; plain words match the start of an identifier
// part, so `load` finds `loadConfigFromFile` and `config-loader` but not `download`.

/** How a question named something. */
type TermKind =
  | 'identifier' // `runAgentLoop`, `NODE_ENV`, `AxiosError`
  | 'member' // `res.redirect`, `Observable.prototype.pipe`
  | 'flag' // `--forbid-only`
  | 'header' // `X-Forwarded-Proto`, `Content-Type`
  | 'file' // `package.json`, `.mocharc`, `src/config.ts`
  | 'literal' // `application/json`, `2000`, a quoted `'YYYY'`
  | 'phrase' // a quoted `"where a stream was expected"`
  | 'word' // a plain question word, stemmed
  | 'concept'; // a word code uses for a question word's concept

/** One search term. */
export interface Term {
  /** As the question wrote it (a word's stem for words). */
  text: string;
  kind: TermKind;
  /** How much a match counts (1 = a plain question word). */
  weight: number;
  /**
   * A regex source (JavaScript syntax, no flags) that finds a mention in a line. Terms that ignore
   * case spell it out (`[xX]-...`), so that several terms can share one search.
   */
  pattern: string;
  /**
   * Lowercase identifiers a definition of this term would name (`forbidonly` for `--forbid-only`);
   * for words and concepts, stems that must start an identifier part.
   */
  names: string[];
  /** For members: the object part, lowercase (`res` for `res.redirect`). */
  owner?: string;
  /** For files: a Glob pattern that finds the file by name. */
  glob?: string;
  /** Lowercase text every mention holds, to skip a line before trying `pattern` on it. */
  needle?: string;
}

/** The term kinds that are matched as parts of identifiers rather than exactly. */
export const isWordLike = (t: Term) => t.kind === 'word' || t.kind === 'concept';

/** Escapes regex metacharacters. */
export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Not inside a longer identifier on either side. */
export const exact = (source: string) => `(?<![\\w$])(?:${source})(?![\\w$])`;

/** Stems this short match only a whole part: `res` is not `resolve`, `log` is not `login`. */
const isShort = (stemText: string) => stemText.length <= 3;

/**
 * A stem at the start of an identifier part, case-insensitively: after a non-letter, at a
 * lower→upper camel boundary, or where an acronym run ends (`Http` in `XMLHttpRequest`).
 */
export function partStart(stemText: string): string {
  const [first = '', ...rest] = stemText.toLowerCase();
  const tail = rest.map(ci).join('') + (isShort(stemText) ? '(?![a-z])' : '');
  if (!/[a-z]/.test(first)) return `(?<![A-Za-z0-9])${escapeRegex(first)}${tail}`;
  const up = first.toUpperCase();
  return `(?:(?<![A-Za-z0-9])[${first}${up}]|(?<=[a-z0-9])${up}|(?<=[A-Z])${up}(?=[a-z]))${tail}`;
}

/** Text matched literally in either case: `X-Ray` → `[xX]-[rR][aA][yY]`. */
export const caseless = (text: string) => [...text].map(ci).join('');

/** One character matched in either case. */
function ci(ch: string): string {
  const lower = ch.toLowerCase();
  const upper = ch.toUpperCase();
  return lower === upper || lower.length !== 1 || upper.length !== 1 ? escapeRegex(ch) : `[${lower}${upper}]`;
}

/** Lowercase camelCase of a kebab or snake name: `forbid-only` → `forbidonly`. */
export const squash = (name: string) => name.replace(/[-_]/g, '').toLowerCase();

const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) => isLower(c) || isUpper(c) || isDigit(c);
const starts = new Map<string, number[]>();

/** The start offsets of the parts of an identifier (`createETagGenerator` → 0, 6, 7, 10). */
function partStarts(identifier: string): number[] {
  const known = starts.get(identifier);
  if (known !== undefined) return known;
  const out: number[] = [];
  for (let i = 0; i < identifier.length; i++) {
    const c = identifier.charCodeAt(i);
    if (!isAlnum(c)) continue;
    const prev = i === 0 ? 0 : identifier.charCodeAt(i - 1);
    if (
      !isAlnum(prev) ||
      (isUpper(c) && (isLower(prev) || isDigit(prev))) ||
      (isUpper(c) && isUpper(prev) && isLower(identifier.charCodeAt(i + 1)))
    )
      out.push(i);
  }
  // Names repeat across a run's files: remember them, within bounds.
  if (starts.size > 50_000) starts.clear();
  starts.set(identifier, out);
  return out;
}

/** Whether `stemText` starts one of the parts of `identifier`. */
export function startsPart(identifier: string, stemText: string): boolean {
  const lower = identifier.toLowerCase();
  const starts = partStarts(identifier);
  return starts.some(
    (at) =>
      lower.startsWith(stemText, at) &&
      (!isShort(stemText) || !/[a-z]/.test(identifier[at + stemText.length] ?? '')),
  );
}

/** How well a defined name matches a term: 0 (not at all) to 1 (exactly the name asked for). */
export function nameMatch(name: string, term: Term): number {
  const lower = name.toLowerCase();
  if (isWordLike(term)) {
    const hit = term.names.some((s) => startsPart(name, s));
    if (!hit) return 0;
    // The word is the whole name, or one part of a longer one.
    return term.names.some((s) => lower === s || (lower.startsWith(s) && lower.length - s.length <= 3))
      ? 0.6
      : 0.4;
  }
  // `'forbid-only': {` declares the flag `--forbid-only`.
  if (term.kind === 'flag') return term.names.includes(lower) ? 1 : 0;
  if (!term.names.includes(lower) && !term.names.includes(squash(name))) return 0;
  // Names are matched as written: `observable` is not the class `Observable`.
  const asWritten = term.kind === 'member' ? (term.text.split('.').pop() ?? '') : term.text;
  if (name === asWritten || /^[A-Z0-9_]+$/.test(asWritten)) return 1;
  return 0.5;
}
