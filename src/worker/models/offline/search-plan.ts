// The offline model's searches, as tool calls with a purpose each. Discovery runs them all in one
// turn (they run in parallel): definition-shaped lines for the question's names, one count per
// specific term (exact file counts for the report), one count over the plain words, file names
// that match, and the project's package.json for its entry points. Reads of the best candidates
// follow in the next turn. Every call is recomputed from the question, so a later turn can tell
// which result answered which search without keeping any state of its own.
import { definitionPattern } from './definitions.js';
import type { QuestionTerms } from './question.js';
import { isWordLike, type Term } from './terms.js';

/** What a planned call is for. */
export type Purpose = 'definitions' | 'term' | 'words' | 'names' | 'file' | 'manifest' | 'package' | 'read';

/** A planned tool call. */
export interface PlannedCall {
  name: string;
  input: Record<string, unknown>;
  purpose: Purpose;
  /** For `term` and `file` calls: the term searched. */
  term?: Term;
}

/** Files Grep reads: code and config, not source maps, images or lockfiles. */
export const CODE_GLOB =
  '**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx,json,json5,yml,yaml,toml,py,rb,go,rs,java,kt,scala,swift,php,cs,c,h,cc,cpp,hpp,vue,svelte,sh,md}';

/** Specific terms given a count of their own. */
const MAX_TERM_COUNTS = 3;
/** Most definition lines read back: enough for a large repository, bounded for the conversation. */
const DEFINITION_LINES = 1500;

/** The definition search's name fragments: identifiers as written, words as stems. */
function fragments(terms: readonly Term[]): string[] {
  const out: string[] = [];
  for (const t of terms) {
    if (t.kind === 'concept' && t.text.length < 4) continue;
    if (t.kind === 'flag') out.push(t.text.replace(/^-+/, ''));
    out.push(...t.names.filter((n) => n.length >= 3));
  }
  return out;
}

/** The union of some terms' mention patterns, or undefined when there are none. */
function union(terms: readonly Term[]): string | undefined {
  return terms.length === 0 ? undefined : terms.map((t) => `(?:${t.pattern})`).join('|');
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

/** Discovery: the calls of the first turn, for the tools the agent was offered. */
export function discoveryCalls(q: QuestionTerms, offered: ReadonlySet<string>): PlannedCall[] {
  const calls: PlannedCall[] = [];
  const specific = q.terms.filter((t) => !isWordLike(t));
  const words = q.terms.filter((t) => t.kind === 'word');
  if (offered.has('Grep')) {
    const defs = definitionPattern(fragments(q.terms));
    if (defs !== undefined)
      calls.push({
        name: 'Grep',
        purpose: 'definitions',
        input: {
          pattern: defs,
          '-i': true,
          '-n': true,
          output_mode: 'content',
          glob: CODE_GLOB,
          head_limit: DEFINITION_LINES,
        },
      });
    for (const term of specific.slice(0, MAX_TERM_COUNTS)) {
      const input: Record<string, unknown> = { pattern: term.pattern, output_mode: 'count' };
      if (term.ignoreCase) input['-i'] = true;
      // A phrase or a file name may be anywhere; code names are looked for in code.
      if (term.kind !== 'phrase' && term.kind !== 'file') input['glob'] = CODE_GLOB;
      calls.push({ name: 'Grep', purpose: 'term', term, input });
    }
    const wordPattern = union(words);
    if (wordPattern !== undefined)
      calls.push({
        name: 'Grep',
        purpose: 'words',
        input: { pattern: wordPattern, output_mode: 'count', glob: CODE_GLOB },
      });
  }
  if (offered.has('Glob')) {
    for (const pattern of nameGlobs(q.terms))
      calls.push({ name: 'Glob', purpose: 'names', input: { pattern } });
    for (const term of specific)
      if (term.glob !== undefined)
        calls.push({ name: 'Glob', purpose: 'file', term, input: { pattern: term.glob } });
  }
  // Whether there is a package.json to read with the candidates (entry points, the project's name).
  if (offered.has('Glob') && offered.has('Read') && calls.length > 0)
    calls.push({ name: 'Glob', purpose: 'manifest', input: { pattern: MANIFEST } });
  return calls;
}

/** The project's manifest, read for its name and entry points. */
export const MANIFEST = 'package.json';

/** The read of the manifest, planned with the first confirming reads. */
export const MANIFEST_READ: PlannedCall = {
  name: 'Read',
  purpose: 'package',
  input: { file_path: MANIFEST, limit: 300 },
};

/** The confirming reads of the second turn. */
export function readCalls(files: readonly string[], lines: number): PlannedCall[] {
  return files.map((file) => ({ name: 'Read', purpose: 'read', input: { file_path: file, limit: lines } }));
}
