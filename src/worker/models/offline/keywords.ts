// Reads a task the way the offline model needs it: the search terms (quoted strings, identifiers,
// file-ish names, then plain words without stop words) and how thorough the user asked it to be.

/** How much exploring the task asked for. */
export type Thoroughness = 'quick' | 'medium' | 'very thorough';

/** What each thoroughness level allows. */
export interface SearchBudget {
  /** Files read whole (up to `readLines` lines each). */
  readFiles: number;
  readLines: number;
  /**
   * Most `path:line` matches Grep returns. Grep walks files newest first, so a search that hits this
   * cap depends on modification times: it is kept high enough that ordinary searches never do.
   */
  grepLines: number;
  /** Most references listed per keyword in the report. */
  refsPerKeyword: number;
}

/** Budgets per thoroughness level. */
export const BUDGETS: Record<Thoroughness, SearchBudget> = {
  quick: { readFiles: 2, readLines: 200, grepLines: 100, refsPerKeyword: 5 },
  medium: { readFiles: 4, readLines: 400, grepLines: 300, refsPerKeyword: 10 },
  'very thorough': { readFiles: 10, readLines: 1000, grepLines: 1000, refsPerKeyword: 25 },
};

/** One search term. */
export interface Keyword {
  /** As the user wrote it (plain words lowercased and singular). */
  text: string;
  kind: 'quoted' | 'file' | 'identifier' | 'word';
  /** What Grep looks for (a file name's stem); absent for pure glob patterns and directories. */
  term?: string;
  /** For file-ish keywords: the Glob pattern that finds them. */
  glob?: string;
}

/** The terms of a task. */
export interface TaskTerms {
  keywords: Keyword[];
  thoroughness: Thoroughness;
}

const MAX_KEYWORDS = 8;

const STOP_WORDS = new Set(
  `a about above across after again all also an and any are around as at be because been before being below between both but by
  can could did do does doing done down during each either else etc even every few for from further get gets give go had has have
  having he her here hers him his how however i if in inside into is it its itself just let like made make makes many me might more
  most much must my no nor not now of off on once only or other our ours out over own per please same she should so some such than
  that the their them then there these they this those through to too under until up upon us very via was we were what whats when
  where wheres whether which while who whom whose why will with within without would yes yet you your
  find finds search look locate show list tell explain describe summarize summarise give report answer question understand
  code codebase file files project repo repository source sources function functions method methods thing things place places
  part parts way ways work works working used use uses using called call defined define definition implemented implement
  implementation happen happens handled related relevant exist exists quick quickly medium thorough thoroughly thoroughness very
  explore exploration check see need needs want wants know e.g i.e eg ie`.split(/\s+/),
);

/** Finds the search terms and the thoroughness of a task. */
export function extractTerms(task: string): TaskTerms {
  const strong: Keyword[] = [];
  const words: Keyword[] = [];
  const seen = new Set<string>();
  const add = (list: Keyword[], k: Keyword) => {
    const key = k.text.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    list.push(k);
  };
  const quoted = /(?<![\w])"([^"\n]{2,80})"|(?<![\w])'([^'\n]{2,80})'(?![\w])|`([^`\n]{1,80})`/g;
  for (const m of task.matchAll(quoted)) {
    const text = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (text === '') continue;
    add(strong, looksLikeFile(text) ? fileKeyword(text) : { text, kind: 'quoted', term: text });
  }
  const rest = task.replace(quoted, ' ');
  for (const m of rest.matchAll(/[A-Za-z0-9_$*.][A-Za-z0-9_$./*-]*/g)) {
    const token = m[0].replace(/^\.\//, '').replace(/[.\-/]+$/, '');
    if (token.length < 2 || STOP_WORDS.has(token.toLowerCase())) continue;
    if (looksLikeFile(token)) add(strong, fileKeyword(token));
    else if (isIdentifier(token)) add(strong, { text: token, kind: 'identifier', term: token });
    else if (/^[A-Za-z]{3,}$/.test(token)) {
      const word = singular(token.toLowerCase());
      if (!STOP_WORDS.has(word)) add(words, { text: word, kind: 'word', term: word });
    }
  }
  return { keywords: [...strong, ...words].slice(0, MAX_KEYWORDS), thoroughness: thoroughnessOf(task) };
}

/** The thoroughness a task asks for (default medium). */
export function thoroughnessOf(task: string): Thoroughness {
  if (/\bvery[\s-]+thorough(?:ly)?\b/i.test(task)) return 'very thorough';
  if (/\bquick(?:ly)?\b/i.test(task)) return 'quick';
  return 'medium';
}

/** A regex source matching any of the terms (escaped), or undefined when there is none. */
export function grepPattern(keywords: readonly Keyword[]): string | undefined {
  const terms = keywords.map((k) => k.term).filter((t): t is string => t !== undefined && t !== '');
  return terms.length === 0
    ? undefined
    : terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
}

function looksLikeFile(token: string): boolean {
  if (/\s/.test(token)) return false;
  return /[/*]/.test(token) || /^[\w.-]*[A-Za-z0-9_-]\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(token);
}

function isIdentifier(token: string): boolean {
  if (!/^[A-Za-z_$][\w$.-]*$/.test(token)) return false;
  return (
    /[a-z][A-Z]/.test(token) || // camelCase
    /^[A-Z][a-z0-9]+[A-Z]/.test(token) || // PascalCase
    token.includes('_') ||
    token.includes('$') ||
    /[A-Za-z0-9]-[A-Za-z]/.test(token) || // kebab-case
    /^[A-Z][A-Z0-9]{1,}$/.test(token) // an acronym: API, MCP
  );
}

function fileKeyword(text: string): Keyword {
  const hasExt = /\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(text) && !text.endsWith('*');
  const base = text.split('/').pop() ?? text;
  if (text.includes('*'))
    return { text, kind: 'file', glob: text.startsWith('**/') || text.includes('/') ? text : `**/${text}` };
  if (hasExt) {
    const stem = base.replace(/\.[A-Za-z][A-Za-z0-9]{0,5}$/, '');
    const k: Keyword = { text, kind: 'file', glob: `**/${text}` };
    if (stem.length >= 2) k.term = stem;
    return k;
  }
  return { text, kind: 'file', glob: `${text.replace(/\/+$/, '')}/**/*`, term: base };
}

function singular(word: string): string {
  return word.length >= 5 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word) ? word.slice(0, -1) : word;
}
