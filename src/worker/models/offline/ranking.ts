// Ranks the files the searches found: a definition of what the question names outweighs mentions
// of it; a file that mentions many of the question's words close together outweighs one that
// mentions one word often; a name that matches counts; and each file's kind weighs the whole, so
// source comes before tests, docs, examples, compiled copies and bundles. Read files are judged on
// their whole text, the rest on what the searches said of them.
import { parseDefinitions, type Definition } from './definitions.js';
import type { Evidence, ReadFile } from './evidence.js';
import type { LineRef } from './tool-output.js';
import { fileKind, isMirror, kindWeight, looksBundled, type FileKind } from './file-class.js';
import type { QuestionTerms } from './question.js';
import { lineMatcher } from './line-terms.js';
import { isWordLike, nameMatch, squash, startsPart, type Term } from './terms.js';

/** One ranked file, with the line that best shows why. */
export interface Ranked {
  file: string;
  score: number;
  /** The line to cite (1 when nothing narrower is known). */
  line: number;
  text: string;
  why: string;
  kind: FileKind;
  read: boolean;
  /** What the score is made of: definition, mentions, co-occurrence, name, and the kind's weight. */
  parts: { definition: number; mentions: number; together: number; name: number; weight: number };
}

const SHAPE: Record<Definition['shape'], number> = {
  function: 1,
  class: 1,
  method: 1,
  key: 0.95,
  value: 0.9,
  alias: 0.5,
  local: 0.3,
  declaration: 0.3,
};
/** Lines a window of co-occurring terms spans. */
const WINDOW = 12;

/** A line, with the question's terms it mentions. */
interface Line {
  line: number;
  text: string;
  terms: Term[];
}

interface Best {
  score: number;
  line: number;
  text: string;
  why: string;
  /** For a definition: whether it opens a body (a function, class, method or option table). */
  opensBody?: boolean;
}
const none: Best = { score: 0, line: 0, text: '', why: '' };
const BODIES = new Set<Definition['shape']>(['function', 'class', 'method', 'key']);

/** How strongly one definition on `file` answers `term`. */
function definitionScore(def: Definition, term: Term, file: string, classes: ReadonlySet<string>): number {
  const q = nameMatch(def.name, term);
  if (q === 0) return 0;
  let owner = 1;
  if (term.owner !== undefined) {
    const base = (file.split('/').pop() ?? '').replace(/\..*$/, '').toLowerCase();
    if (def.owner?.toLowerCase() === term.owner) owner = 1.5;
    else if (def.owner !== undefined) owner = 1.1;
    else if (base === term.owner || classes.has(term.owner)) owner = 1.3;
  }
  return term.weight * q * SHAPE[def.shape] * owner;
}

/** The best definition line in `lines` for the question's terms. */
function bestDefinition(lines: readonly Line[], terms: readonly Term[], file: string, near: Nearby): Best {
  // Only a line that names a term can define it (the class lines are kept for members' owners).
  const parsed = lines
    .map((l, index) => ({ ...l, index }))
    .filter((l) => l.terms.length > 0 || /\bclass\s/.test(l.text))
    .map((l) => ({ ...l, defs: parseDefinitions(l.text) }));
  const classes = new Set(
    parsed.flatMap((l) => l.defs.filter((d) => d.shape === 'class').map((d) => d.name.toLowerCase())),
  );
  let best = none;
  let bestNear = 0;
  // The best definition of each specific term, and the best made of the question's words: a file
  // that defines two of the names asked for (sameDay and nextDay) says more than one that defines one.
  const perTerm = new Map<Term | 'words', number>();
  for (const l of parsed) {
    for (const def of l.defs) {
      const hits = terms
        .map((t) => ({ t, s: definitionScore(def, t, file, classes) }))
        .filter((h) => h.s > 0);
      if (hits.length === 0) continue;
      for (const h of hits) if (!isWordLike(h.t) && h.s > (perTerm.get(h.t) ?? 0)) perTerm.set(h.t, h.s);
      // A name made of several of the question's words (loadConfigFromFile) says more than each word.
      // Words the file's path already says (`http` in `adapters/http.js`) tell its names apart less.
      const words = hits.filter((h) => isWordLike(h.t));
      const bonus = words.length >= 2 ? 1 + 0.5 * (words.length - 1) : 1;
      const wordScore = words.reduce((sum, h) => sum + h.s * (pathSays(file, h.t) ? 0.5 : 1), 0) * bonus;
      if (wordScore > (perTerm.get('words') ?? 0)) perTerm.set('words', wordScore);
      const score = hits.filter((h) => !isWordLike(h.t)).reduce((sum, h) => sum + h.s, 0) + wordScore;
      // Between equals, the one whose body holds the question's rarer words (handleRequestTimeout
      // over httpAdapter for "where are request timeouts handled?").
      const nearby = near(l.index);
      if (score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && nearby > bestNear)) {
        best = {
          score,
          line: l.line,
          text: l.text,
          why: `defines \`${def.owner ? `${def.owner}.` : ''}${def.name}\``,
          opensBody: BODIES.has(def.shape),
        };
        bestNear = nearby;
      }
    }
  }
  const others = [...perTerm.values()].sort((a, b) => b - a).slice(1);
  const extra = others.reduce((sum, s, i) => sum + s / 2 ** (i + 1), 0);
  return extra > 0 ? { ...best, score: best.score + extra } : best;
}

/** The window of a read file where most of the question's terms meet. */
function bestWindow(lines: readonly Line[], rarity: ReadonlyMap<Term, number>): Best {
  const rare = (t: Term) => t.weight * (rarity.get(t) ?? 1);
  // The score is how much of the question one window holds; the line cited is in the window that
  // holds most of what tells this file's lines apart (rarer words, words its path does not say).
  let score = 0;
  let cite = { rare: 0, at: -1, seen: new Set<Term>() };
  for (let i = 0; i < lines.length; i++) {
    const seen = new Set<Term>();
    for (let j = i; j < Math.min(lines.length, i + WINDOW); j++)
      for (const t of lines[j]?.terms ?? []) seen.add(t);
    score = Math.max(
      score,
      [...seen].reduce((a, t) => a + t.weight, 0),
    );
    const rareCoverage = [...seen].reduce((a, t) => a + rare(t), 0);
    if (rareCoverage > cite.rare) cite = { rare: rareCoverage, at: i, seen };
  }
  if (cite.at < 0) return none;
  let at = cite.at;
  let most = -1;
  for (let j = cite.at; j < Math.min(lines.length, cite.at + WINDOW); j++) {
    const w = (lines[j]?.terms ?? []).reduce((s, t) => s + rare(t), 0);
    if (w > most) {
      most = w;
      at = j;
    }
  }
  const names = [...cite.seen].filter((t) => t.kind !== 'concept').map((t) => `\`${t.text}\``);
  const l = lines[at] ?? { line: 0, text: '' };
  const why = names.length > 1 ? `${names.join(', ')} together` : `mentions ${names[0] ?? 'the terms'}`;
  return { score, line: l.line, text: l.text, why };
}

/** How much of the question a stretch of lines starting at an index holds (rarer words weigh more). */
type Nearby = (index: number) => number;

/**
 * How much each term tells a line of a file apart: 1 for a word on a few lines, less for one on
 * every other line (`request` in an HTTP adapter) or one the file's path already says (`http`,
 * `adapter` in `adapters/http.js`), so that the lines cited are the ones about the rest of the
 * question (the timeouts).
 */
function rarityIn(lines: readonly Line[], file: string): Map<Term, number> {
  const counts = new Map<Term, number>();
  for (const l of lines) for (const t of l.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return new Map(
    [...counts].map(([t, n]) => [
      t,
      isWordLike(t) ? Math.min(1, 2 / Math.sqrt(n)) * (pathSays(file, t) ? 0.3 : 1) : 1,
    ]),
  );
}

/** Whether a file's path names a word of the question (`adapter` in `lib/adapters/http.js`). */
function pathSays(file: string, t: Term): boolean {
  const parts = file.toLowerCase().split(/[/._-]+/);
  return t.names.some((name) =>
    parts.some((p) => p.startsWith(name) || (name.startsWith(p) && p.length >= 3)),
  );
}

/** The rarity-weighted terms of the window starting at each line. */
function nearbyIn(lines: readonly Line[], rarity: ReadonlyMap<Term, number>): Nearby {
  return (index) => {
    const seen = new Set<Term>();
    for (let j = index; j < Math.min(lines.length, index + WINDOW); j++)
      for (const t of lines[j]?.terms ?? []) seen.add(t);
    return [...seen].reduce((a, t) => a + t.weight * (rarity.get(t) ?? 1), 0);
  };
}

/** A read file's lines, and the lines the searches found past the part that was read. */
function linesOf(read: ReadFile | undefined, found: readonly LineRef[] = []): readonly LineRef[] {
  if (read === undefined) return found;
  const last = read.lines.at(-1)?.line ?? 0;
  const beyond = found.filter((l) => l.line > last);
  return beyond.length === 0 ? read.lines : [...read.lines, ...beyond.sort((a, b) => a.line - b.line)];
}

/** Ranks every file the evidence names, best first (ties by path). */
export function rankFiles(question: QuestionTerms, task: string, ev: Evidence): Ranked[] {
  // The project's own name ("where does express read NODE_ENV?") is everywhere in it: it says little.
  const own = new Set(ev.packageWords);
  const terms = question.terms.map((t) =>
    isWordLike(t) && t.names.some((n) => own.has(n)) ? { ...t, weight: t.weight * 0.1 } : t,
  );
  const q = { ...question, terms };
  const matcher = lineMatcher(q.terms);
  const specific = q.terms.filter((t) => !isWordLike(t));
  const words = q.terms.filter((t) => t.kind === 'word');
  const files = new Set([
    ...ev.lines.keys(),
    ...ev.mentions.keys(),
    ...ev.words.keys(),
    ...ev.named,
    ...ev.reads.keys(),
  ]);
  const out: Ranked[] = [];
  for (const file of files) {
    const kind = fileKind(file);
    const read = ev.reads.get(file);
    const lines: Line[] = linesOf(read, ev.lines.get(file)).map((l) => ({
      ...l,
      terms: matcher.termsIn(l.text),
    }));
    const rarity = rarityIn(lines, file);
    const found = bestDefinition(lines, q.terms, file, nearbyIn(lines, rarity));
    const def = q.usage ? { ...found, score: found.score * 0.5 } : found;
    // A read file is judged on its text; the others on how many lines mention anything asked.
    let mentions = 0;
    if (read)
      for (const t of specific) {
        const c = lines.filter((l) => l.terms.includes(t)).length;
        mentions += t.weight * Math.min(1, Math.log2(1 + c) / 4) * 0.8;
      }
    const window = read ? bestWindow(lines, rarity) : none;
    const loose = (n: number | undefined) => Math.min(3, Math.log2(1 + (n ?? 0)));
    const spread = read
      ? window.score * 0.6
      : loose(ev.mentions.get(file)) * 0.8 + loose(ev.words.get(file)) * 0.4;
    const path = pathScore(file, q.terms);
    let prior = kindWeight(kind, task) * (isMirror(file, ev.known) ? 0.25 : 1);
    if (read && looksBundled(read.lines, read.total)) prior *= 0.35;
    const score = prior * (def.score + mentions + spread + path.score + (ev.entries.has(file) ? 0.3 : 0));
    if (score <= 0) continue;
    // The definition, when it holds its own against where the terms meet or opens the code there.
    const opens =
      def.opensBody === true &&
      def.line > 0 &&
      def.line <= window.line &&
      window.line - def.line <= 2 * WINDOW;
    // When the path says all the question's words (`src/worker/tools/`), its lines cannot tell
    // themselves apart by them: the file's own definition is what to show.
    const explained = words.length > 0 && words.every((t) => pathSays(file, t));
    const cite =
      def.score > 0 && (def.score >= window.score * 0.5 || opens || explained)
        ? def
        : window.score > 0
          ? window
          : def;
    const firstMention = cite.line > 0 ? undefined : lines.find((l) => l.terms.length > 0);
    out.push({
      file,
      score,
      line: cite.line || firstMention?.line || 1,
      text: cite.text || firstMention?.text || '',
      why: cite.why || path.why || "mentions the question's terms",
      kind,
      read: read !== undefined,
      parts: { definition: def.score, mentions, together: spread, name: path.score, weight: prior },
    });
  }
  return out.sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Terms a file's name or directories carry. */
function pathScore(file: string, terms: readonly Term[]): { score: number; why: string } {
  const parts = file.split('/');
  let base = (parts.pop() ?? '').replace(/\.[^.]*$/, '').replace(/\.d$/, '');
  // `tools/index.ts` is the module `tools`.
  if (/^(?:index|mod|__init__|main)$/.test(base) && parts.length > 0) base = parts.pop() ?? base;
  let score = 0;
  let why = '';
  for (const t of terms) {
    if (t.kind === 'concept' || t.kind === 'phrase' || t.kind === 'literal') continue;
    if (t.kind === 'file') {
      const named = t.text.replace(/^\.?\//, '');
      if (file === named || file.endsWith(`/${named}`) || (parts.length === 0 && file.startsWith(named)))
        score += t.weight;
      else continue;
    } else if (isWordLike(t)) {
      if (t.names.some((s) => startsPart(base, s))) score += 0.8 * t.weight;
      else if (parts.some((d) => t.names.some((s) => startsPart(d, s)))) score += 0.3 * t.weight;
      else continue;
    } else {
      const written = t.kind === 'member' ? (t.text.split('.').pop() ?? '') : t.text.replace(/^-+/, '');
      const name = squash(written);
      // Case counts: `observable.ts` is not `Observable.ts`.
      if (base === written) score += 0.6 * t.weight;
      else if (squash(base) === name) score += 0.3 * t.weight;
      else if (
        t.owner !== undefined &&
        (squash(base) === t.owner || parts.some((d) => d.toLowerCase() === t.owner))
      )
        score += 0.25 * t.weight;
      else if (name.length >= 4 && squash(base).includes(name)) score += 0.2 * t.weight;
      else continue;
    }
    why ||= `its name matches \`${t.text}\``;
  }
  // Two words the question puts side by side that the path puts side by side ("the worker tools"
  // and `src/worker/tools/`, "config loader" and `config-loader.ts`) name this very place.
  const words = terms.filter((t) => t.kind === 'word');
  const segments = [...parts, base].flatMap((p) => p.split(/[-_.]/)).map((p) => p.toLowerCase());
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]?.names[0] ?? '', words[i + 1]?.names[0] ?? ''];
    if (segments.some((seg, j) => seg.startsWith(a) && (segments[j + 1] ?? '').startsWith(b))) {
      score += 1;
      why = `its path reads \`${words[i]?.text} ${words[i + 1]?.text}\``;
    }
  }
  return { score, why };
}
