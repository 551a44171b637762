// Reads a question the way a developer would: code-like tokens (dotted names, `--flags`, header
// names, camelCase, SCREAMING_CASE, file names, MIME types, quoted strings) are kept whole and
// searched as written; question phrasing is dropped; the plain words left are stemmed and widened
// with the names code uses for their concept (vocabulary.ts).
import { caseless, escapeRegex, exact, partStart, squash, type Term } from './terms.js';
import { ASKS_FOR_DOCS } from './file-class.js';
import { CONCEPTS, STOP_WORDS, stem } from './vocabulary.js';

/** How much exploring the task asked for. */
export type Thoroughness = 'quick' | 'medium' | 'very thorough';

/** What a question asks for. */
export interface QuestionTerms {
  terms: Term[];
  thoroughness: Thoroughness;
  /**
   * "Where is X used / called?" asks for the uses of X, not its definition: definitions then count
   * for less than the lines where the question's terms meet.
   */
  usage: boolean;
  /** The question is about documentation, so Markdown and text files are searched too. */
  docs: boolean;
}

const USAGE = /\b(?:used|uses|using|called|calls|invoked|invokes|consumed|referenced|applied)\b/i;
const DEFINITION = /\b(?:defined|declared|implemented|implements|registered|created|written)\b/i;

const MAX_TERMS = 12;
const FILE_EXT =
  /\.(?:[cm]?[jt]sx?|json5?|md|mdx|ya?ml|toml|ini|cfg|conf|env|txt|html?|css|scss|less|lock|sh|py|rb|go|rs|java|kt|swift|c|h|cc|cpp|hpp|cs|php|vue|svelte|xml|sql|proto|graphql)$/i;
const MIME = /^(?:application|text|image|audio|video|multipart|font|message|model)\/[\w.+-]+$/i;
const QUOTED = /(?<![\w])"([^"\n]{1,80})"|(?<![\w])'([^'\n]{1,80})'(?![\w])|`([^`\n]{1,80})`/g;
const TOKEN = /(?<![\w$])(?:--?[A-Za-z][\w-]*|[+-]?\d[\d:.]*|\.?[A-Za-z_$][\w$]*(?:[./-][\w$]+)*)/g;

/** The thoroughness a task asks for (default medium). */
function thoroughnessOf(task: string): Thoroughness {
  if (/\bvery[\s-]+thorough(?:ly)?\b/i.test(task)) return 'very thorough';
  if (/\bquick(?:ly)?\b/i.test(task)) return 'quick';
  return 'medium';
}

/** Finds the search terms and the thoroughness of a task. */
export function readQuestion(task: string): QuestionTerms {
  const thoroughness = thoroughnessOf(task);
  // The CLI appends "Thoroughness: medium." to each question: it is not part of what is asked.
  const text = task.replace(/^\s*thoroughness:.*$/gim, ' ');
  const terms: Term[] = [];
  const add = (t: Term | undefined) => {
    if (t === undefined) return;
    const key = `${t.kind === 'concept' ? 'word' : t.kind}:${t.text.toLowerCase()}`;
    const seen = terms.find(
      (o) => `${o.kind === 'concept' ? 'word' : o.kind}:${o.text.toLowerCase()}` === key,
    );
    if (seen) seen.weight = Math.max(seen.weight, t.weight);
    else terms.push(t);
  };
  for (const m of text.matchAll(QUOTED)) {
    const quoted = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (quoted === '') continue;
    if (/\s/.test(quoted)) add(phrase(quoted));
    else for (const t of classify(quoted, true)) add(t);
  }
  for (const m of text.replace(QUOTED, ' ').matchAll(TOKEN)) {
    const token = m[0].replace(/[.:-]+$/, '');
    for (const t of classify(token, false)) add(t);
  }
  for (const t of [...terms]) if (t.kind === 'word') for (const c of concepts(t)) add(c);
  terms.sort((a, b) => b.weight - a.weight);
  const usage = USAGE.test(text) && !DEFINITION.test(text);
  return { terms: terms.slice(0, MAX_TERMS), thoroughness, usage, docs: ASKS_FOR_DOCS.test(text) };
}

/** The terms one token of the question gives (none for phrasing and stop words). */
function classify(token: string, quoted: boolean): Term[] {
  if (token.length < 2) return [];
  if (/^--?[A-Za-z][\w-]*$/.test(token)) return flag(token);
  if (/^\.[A-Za-z][\w.-]*$/.test(token)) return fileTerms(token);
  if (MIME.test(token)) return [literal(token, 4, true)];
  if (token.includes('/')) return fileTerms(token);
  if (/^[+-]?\d/.test(token)) return /^\d{3,}$/.test(token) || quoted ? [literal(token, 3, false)] : [];
  if (token.includes('.')) {
    if (!FILE_EXT.test(token)) return [member(token)];
    // `res.json` or `app.js` may be a method as well as a file; `package.json` is a file.
    const object = token.split('.')[0] ?? '';
    const method = /^[A-Za-z_$][\w$]*$/.test(object) && (object.length <= 4 || /[a-z][A-Z]/.test(object));
    return method ? [...fileTerms(token), member(token)] : fileTerms(token);
  }
  if (/^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+$/.test(token)) return kebab(token);
  if (/[a-z][A-Z]|[_$]|^[A-Z][a-z0-9]+[A-Z]/.test(token)) return [identifier(token)];
  if (/^[A-Z0-9]{2,}$/.test(token)) return [acronym(token, quoted)];
  if (quoted) return [identifier(token)];
  const lower = token.toLowerCase();
  if (STOP_WORDS.has(lower) || lower.length < 3 || !/^[a-z]+$/.test(lower)) return [];
  // A capitalised word in mid-sentence is most likely a class name (the Runner class).
  const asClass = /^[A-Z][a-z]+$/.test(token) ? [{ ...identifier(token), weight: 2.5 }] : [];
  return [...asClass, word(lower)];
}

function identifier(name: string): Term {
  const screaming = /^[A-Z0-9_]+$/.test(name);
  return {
    text: name,
    kind: 'identifier',
    weight: 5,
    // An environment variable may be read in either case (`http_proxy`).
    pattern: exact(screaming ? caseless(name) : escapeRegex(name)),
    names: [name.toLowerCase()],
    needle: name.toLowerCase(),
  };
}

function member(token: string): Term {
  const parts = token.split('.').filter((p) => p !== '');
  const name = parts.at(-1) ?? token;
  const owner = parts.filter((p) => p !== 'prototype' && p !== 'fn')[0];
  const term: Term = {
    text: token,
    kind: 'member',
    weight: 5,
    pattern: exact(escapeRegex(name)),
    names: [name.toLowerCase()],
    needle: name.toLowerCase(),
  };
  if (owner !== undefined && owner !== name) term.owner = owner.toLowerCase();
  return term;
}

function flag(token: string): Term[] {
  const name = token.replace(/^-+/, '');
  const term: Term = {
    text: token,
    kind: 'flag',
    weight: 5,
    pattern: `--${escapeRegex(name)}(?![\\w-])|['"\`]${escapeRegex(name)}['"\`]`,
    names: [name.toLowerCase()],
    needle: name.toLowerCase(),
  };
  if (!name.includes('-')) return [term, word(name)];
  // `--forbid-only` is declared as written; the program then reads it as `forbidOnly`, a name of
  // its own that counts for less (its uses are everywhere the option matters).
  const camel = name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const option: Term = {
    text: camel,
    kind: 'identifier',
    weight: 2.5,
    pattern: exact(`${escapeRegex(camel)}|${escapeRegex(name.replace(/-/g, '_'))}`),
    names: [camel.toLowerCase(), squash(name)],
    needle: (name.split('-')[0] ?? name).toLowerCase(),
  };
  return [
    term,
    option,
    ...name
      .split('-')
      .filter((w) => w.length >= 3 && !STOP_WORDS.has(w))
      .map(word),
  ];
}

function kebab(token: string): Term[] {
  const parts = token.split('-');
  if (parts.every((p) => /^[A-Z0-9]/.test(p)) || /^x$/i.test(parts[0] ?? '')) {
    return [
      {
        text: token,
        kind: 'header',
        weight: 4,
        // As written (`'Content-Type'`), or as code names it (`setContentType`, `contentType`).
        pattern: `(?<![\\w-])${caseless(token)}(?![\\w-])|${partStart(squash(token))}`,
        names: [squash(token)],
        needle: token.toLowerCase(),
      },
    ];
  }
  // Lower-case hyphenated words: an option name or plain English ("case-insensitive").
  return [
    { ...literal(token, 2, true), names: [squash(token)] },
    ...parts.filter((p) => p.length >= 3 && !STOP_WORDS.has(p)).map((p) => word(p)),
  ];
}

/**
 * A file name, and its stem as a word: the code that reads `.env` files is `loadEnv` in `env.ts`,
 * the code that reads `nodemon.json` mentions `nodemon`.
 */
function fileTerms(token: string): Term[] {
  const base =
    token
      .split('/')
      .filter((p) => p !== '')
      .pop() ?? token;
  const stemWord = base.replace(/^\.+/, '').split('.')[0]?.toLowerCase() ?? '';
  const words = /^[a-z]{3,}$/.test(stemWord) && !STOP_WORDS.has(stemWord) ? [word(stemWord)] : [];
  return [file(token), ...words];
}

function file(token: string): Term {
  const base =
    token
      .split('/')
      .filter((p) => p !== '')
      .pop() ?? token;
  const glob = token.includes('/') ? `**/${token.replace(/^\.?\//, '')}*` : `**/${base}`;
  return {
    text: token,
    kind: 'file',
    weight: 3,
    pattern: `(?<![\\w$])${caseless(base)}(?![\\w-])`,
    names: [],
    glob,
    needle: base.toLowerCase(),
  };
}

function literal(text: string, weight: number, ignoreCase: boolean): Term {
  return {
    text,
    kind: 'literal',
    weight,
    pattern: exact(ignoreCase ? caseless(text) : escapeRegex(text)),
    names: [],
    needle: text.toLowerCase(),
  };
}

function phrase(text: string): Term {
  const source = text.split(/\s+/).map(caseless).join('\\s+');
  const needle = (text.split(/\s+/)[0] ?? '').toLowerCase();
  return { text, kind: 'phrase', weight: 6, pattern: source, names: [], needle };
}

function acronym(token: string, quoted: boolean): Term {
  if (quoted) return { ...literal(token, 3, false), names: [token.toLowerCase()] };
  const lower = token.toLowerCase();
  return {
    text: lower,
    kind: 'word',
    weight: 1.5,
    pattern: partStart(lower),
    names: [lower],
    needle: lower,
  };
}

function word(lower: string): Term {
  const s = stem(lower);
  const names = [...new Set([s, lower])];
  return { text: s, kind: 'word', weight: 1, pattern: partStart(s), names, needle: s };
}

function concepts(t: Term): Term[] {
  return (CONCEPTS.get(t.text) ?? [])
    .filter((c) => c !== t.text)
    .map((c) => ({
      text: c,
      kind: 'concept',
      weight: 0.4,
      pattern: partStart(c),
      names: [c],
      needle: c,
    }));
}
