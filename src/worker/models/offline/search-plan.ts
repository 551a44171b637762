// The offline model's searches, as tool calls with a purpose each. Discovery runs them all in one
// turn (they run in parallel): definition-shaped lines for the question's names, a count of the
// lines that mention any term or word, the files a file name in the question names, and whether
// there is a package.json (read with the candidates, for the project's name and entry points).
// Every Grep walks the whole project, so there are two. Reads of the best candidates follow in the
// next turn. Every call is recomputed from the question, so a later turn can tell
// which result answered which search without keeping any state of its own.
import { definitionPattern, type DefinitionNames } from './definitions.js';
import type { ToolRecord } from './conversation.js';
import { layoutOf, type Layout } from './layout.js';
import type { QuestionTerms } from './question.js';
import { caseless, isWordLike, type Term } from './terms.js';

/** What a planned call is for. */
export type Purpose =
  'layout' | 'definitions' | 'mentions' | 'words' | 'names' | 'file' | 'manifest' | 'package' | 'read';

/** A planned tool call. */
export interface PlannedCall {
  name: string;
  input: Record<string, unknown>;
  purpose: Purpose;
  /** For `file` calls: the term searched. */
  term?: Term;
}

/**
 * Files Grep reads: code and config, not Markdown (a fifth of a documented project's bytes, and
 * seldom the answer), source maps, images or lockfiles.
 */
const CODE_GLOB =
  '**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx,json,json5,yml,yaml,toml,py,rb,go,rs,java,kt,scala,swift,php,cs,c,h,cc,cpp,hpp,vue,svelte,sh}';
/** The same with documentation, for questions about it. */
const DOCS_GLOB =
  '**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx,json,json5,yml,yaml,toml,py,rb,go,rs,java,kt,scala,swift,php,cs,c,h,cc,cpp,hpp,vue,svelte,sh,md,mdx,rst,txt}';

/** The files a question's searches read. */
const globFor = (q: QuestionTerms) => (q.docs ? DOCS_GLOB : CODE_GLOB);

/** Most definition lines read back: enough for a large repository, bounded for the conversation. */
const DEFINITION_LINES = 1500;

/**
 * The names the definition search looks for: the specific terms' names exactly, the words as
 * stems. Related names (concepts) are left out: common ones ("read", "import", "default") would
 * make the search match a fifth of a project's lines and cost five times as much.
 */
function definitionNames(terms: readonly Term[]): DefinitionNames {
  const exact: string[] = [];
  const stems: string[] = [];
  for (const t of terms) {
    if (t.kind === 'concept') continue;
    if (t.kind === 'word') stems.push(...t.names.slice(0, 1).filter((n) => n.length >= 3));
    else {
      if (t.kind === 'flag') exact.push(t.text.replace(/^-+/, '').toLowerCase());
      exact.push(...t.names);
    }
  }
  return { exact, stems };
}

/** Any specific term, as its mention patterns (no flags: they spell out case where it is ignored). */
function specificPattern(specific: readonly Term[]): string | undefined {
  return specific.length === 0 ? undefined : specific.map((t) => `(?:${t.pattern})`).join('|');
}

/**
 * Any word, as plain text in either case: a count to pick candidates by, checked precisely on the
 * files read. (The precise form of a word, the start of an identifier part, needs look-behinds
 * that make a search of a large tree fifteen times slower.)
 */
export function wordPattern(words: readonly Term[]): string | undefined {
  const stems = [...new Set(words.flatMap((w) => w.names.slice(0, 1)))].filter((s) => /^[\w$-]+$/.test(s));
  return stems.length === 0 ? undefined : stems.map(caseless).join('|');
}

/** Glob patterns that find files named after the question's terms. */
function nameGlobs(terms: readonly Term[]): string[] {
  const names = new Set<string>();
  for (const t of terms) {
    if (t.kind === 'concept' || t.kind === 'file' || t.kind === 'phrase' || t.kind === 'literal') continue;
    const base = t.kind === 'member' ? (t.names[0] ?? '') : t.text.replace(/^-+/, '');
    if (base.length < 3 || !/^[\w-]+$/.test(base)) continue;
    names.add(base);
    names.add(base.charAt(0).toUpperCase() + base.slice(1));
  }
  return names.size === 0 ? [] : [`**/*{${[...names].sort().join(',')}}*`];
}

/**
 * Discovery: the calls of the first searching turn, for the tools the agent was offered and the
 * project's layout when it was listed first (the definition search then reads only its source).
 */
function discoveryCalls(q: QuestionTerms, offered: ReadonlySet<string>, layout?: Layout): PlannedCall[] {
  const calls: PlannedCall[] = [];
  const specific = q.terms.filter((t) => !isWordLike(t));
  const words = q.terms.filter((t) => t.kind === 'word');
  if (offered.has('Grep')) {
    const defs = definitionPattern(definitionNames(q.terms));
    if (defs !== undefined)
      calls.push({
        name: 'Grep',
        purpose: 'definitions',
        input: {
          pattern: defs,
          '-i': true,
          '-n': true,
          output_mode: 'content',
          glob: globFor(q),
          head_limit: DEFINITION_LINES,
          ...(layout?.sourceRoot !== undefined ? { path: layout.sourceRoot } : {}),
        },
      });
    // One count of the lines that mention the specific terms, or the words when there are none
    // (every search walks the whole project: a file with two `application/json` says more than
    // one with ten `object`, and the words are counted later only if the terms are rare).
    const mentions = specificPattern(specific);
    const loose = wordPattern(words);
    if (mentions !== undefined) calls.push(countCall(q, 'mentions', mentions));
    else if (loose !== undefined) calls.push(countCall(q, 'words', loose));
  }
  if (offered.has('Glob')) {
    // With Grep, files are found by what they hold (a file named after a term mentions it too).
    if (!offered.has('Grep'))
      for (const pattern of nameGlobs(q.terms))
        calls.push({ name: 'Glob', purpose: 'names', input: { pattern } });
    for (const term of specific)
      if (term.glob !== undefined)
        calls.push({ name: 'Glob', purpose: 'file', term, input: { pattern: term.glob } });
  }
  // Whether there is a package.json to read with the candidates (entry points, the project's name),
  // unless the listing of the top directory said so.
  if (layout === undefined && offered.has('Glob') && offered.has('Read') && calls.length > 0)
    calls.push({ name: 'Glob', purpose: 'manifest', input: { pattern: MANIFEST } });
  return calls;
}

/** Discovery as it was planned for the conversation in `records` (with its layout, if listed). */
export function plannedDiscovery(
  q: QuestionTerms,
  offered: ReadonlySet<string>,
  records: readonly ToolRecord[],
): PlannedCall[] {
  return discoveryCalls(q, offered, layoutOf(records));
}

/** The project's manifest, read for its name and entry points. */
export const MANIFEST = 'package.json';

/** The read of the manifest, planned with the first confirming reads. */
export const MANIFEST_READ: PlannedCall = {
  name: 'Read',
  purpose: 'package',
  input: { file_path: MANIFEST, limit: 300 },
};

/** A count of the lines that match `pattern`, in the files the question's searches read. */
export function countCall(q: QuestionTerms, purpose: Purpose, pattern: string): PlannedCall {
  return { name: 'Grep', purpose, input: { pattern, output_mode: 'count', glob: globFor(q) } };
}

/** The confirming reads of the second turn. */
export function readCalls(files: readonly string[], lines: number): PlannedCall[] {
  return files.map((file) => ({ name: 'Read', purpose: 'read', input: { file_path: file, limit: lines } }));
}
