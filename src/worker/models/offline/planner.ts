// The offline model's brain: decides the next step from the conversation. Discovery (definitions
// and mentions, all in one turn); when the definition search was cut short, the source directories
// it never reached; then reading the best candidates to confirm, and once more if reading changed
// the top three; then the report.
import type { ModelRequest } from '../model-client.js';
import { analyse, type Analysis } from './analysis.js';
import type { Evidence } from './evidence.js';
import { fileKind, isMirror } from './file-class.js';
import type { OfflineState, ToolRecord } from './conversation.js';
import type { Thoroughness } from './question.js';
import { followUpCalls } from './follow-up.js';
import { layoutOf, LAYOUT_INPUT } from './layout.js';
import { MANIFEST, MANIFEST_READ, plannedDiscovery, readCalls, type PlannedCall } from './search-plan.js';

/** The next step: tool calls (with a one-line note), or the report (with the analysis behind it, when made). */
export type OfflineStep =
  { kind: 'tools'; note: string; calls: PlannedCall[] } | { kind: 'report'; analysis?: Analysis };

/** What each thoroughness level allows. */
export interface SearchBudget {
  /** Candidate files read to confirm the ranking. */
  readFiles: number;
  /** Lines read from each. */
  readLines: number;
  /** Ranked answers listed in the report. */
  answers: number;
  /** Matching lines quoted per file in the evidence. */
  refsPerFile: number;
}

/** Budgets per thoroughness level. */
export const BUDGETS: Record<Thoroughness, SearchBudget> = {
  quick: { readFiles: 3, readLines: 2000, answers: 3, refsPerFile: 3 },
  medium: { readFiles: 6, readLines: 2000, answers: 5, refsPerFile: 4 },
  'very thorough': { readFiles: 12, readLines: 4000, answers: 8, refsPerFile: 8 },
};

/** Whether discovery found a package.json at the top of the project. */
function hasManifest(records: readonly ToolRecord[]): boolean {
  return (
    layoutOf(records)?.manifest === true ||
    records.some(
      (r) =>
        r.name === 'Glob' &&
        r.input['pattern'] === MANIFEST &&
        !r.isError &&
        r.content.split('\n').some((l) => l.trim() === MANIFEST),
    )
  );
}

/** A listing of the top directory comes first when LS is there to give it and Grep to use it. */
const listsFirst = (offered: ReadonlySet<string>) => offered.has('LS') && offered.has('Grep');

/** Decides the next step for a request. */
export function planStep(request: ModelRequest, state: OfflineState): OfflineStep {
  const offered = new Set(request.tools.map((t) => t.name));
  if (request.toolChoice === 'none' || offered.size === 0) return { kind: 'report' };
  const q = state.question;
  // The steps: the layout (when LS is offered), discovery, a follow-up search when discovery's
  // was cut or its names rare, then two rounds of reads.
  const searching = state.phase - (listsFirst(offered) ? 1 : 0);
  if (searching < 0)
    return {
      kind: 'tools',
      note: '(offline model) Looking at the layout of the project.\n',
      calls: [{ name: 'LS', purpose: 'layout', input: { ...LAYOUT_INPUT } }],
    };
  if (searching === 0) return discover(state, offered);
  const followUps = followUpCalls(q, offered, state.records);
  const step = searching - 1 - (followUps.length > 0 ? 1 : 0);
  if (step < 0)
    return {
      kind: 'tools',
      note: `(offline model) Searching further: ${followUps.map(describeFollowUp).join('; ')}.\n`,
      calls: followUps,
    };
  if (step > 1 || !offered.has('Read')) return { kind: 'report' };
  const budget = BUDGETS[q.thoroughness];
  const read = new Set(
    state.records.filter((r) => r.name === 'Read').map((r) => String(r.input['file_path'])),
  );
  const analysis = analyse(q, state.task, state.records, offered, followUps);
  // First confirmation: the best candidates; a second only when reading changed the top three.
  const rare = step === 0 ? rareHolders(analysis.evidence) : [];
  const pool =
    step === 0
      ? [
          ...rare,
          ...diverse(
            analysis.ranked.map((r) => r.file).filter((f) => !rare.includes(f)),
            budget.readFiles - rare.length,
          ),
        ]
      : analysis.ranked.slice(0, 3).map((r) => r.file);
  const files = pool.filter((f) => !read.has(f));
  if (files.length === 0) return { kind: 'report', analysis };
  const calls = readCalls(files, budget.readLines);
  if (step === 0 && hasManifest(state.records)) calls.push(MANIFEST_READ);
  const what = files.length === 1 ? 'the best candidate' : `the ${files.length} best candidates`;
  return { kind: 'tools', note: `(offline model) Reading ${what} to confirm.\n`, calls };
}

/** Fewer source files than this holding the question's names are all read, whatever their rank. */
const RARE = 3;

/**
 * The source files that hold the names the question gives, when only a few do: a quoted message
 * found in one file is the answer even when that file defines nothing the question names.
 */
function rareHolders(ev: Evidence): string[] {
  const files = [...ev.mentions.keys()].filter((f) => fileKind(f) === 'source' && !isMirror(f, ev.known));
  return files.length <= RARE ? files.sort() : [];
}

function describeFollowUp(call: PlannedCall): string {
  return call.purpose === 'words'
    ? "the question's words, as the names it gives are rare"
    : `definitions in \`${String(call.input['path'])}\`, which the first search did not reach`;
}

/**
 * The first `n` files, but at most a third of them from a family: a directory with twice as many
 * candidates as there are reads (130 locales, 100 operators), whose look-alike files would
 * otherwise take every read while the one file that differs waits below them.
 */
export function diverse(files: readonly string[], n: number): string[] {
  const dirOf = (f: string) => f.slice(0, f.lastIndexOf('/') + 1);
  const size = new Map<string, number>();
  for (const f of files) size.set(dirOf(f), (size.get(dirOf(f)) ?? 0) + 1);
  const perFamily = Math.max(1, Math.ceil(n / 3));
  const taken = new Map<string, number>();
  const out: string[] = [];
  for (const f of files) {
    if (out.length >= n) break;
    const dir = dirOf(f);
    if ((size.get(dir) ?? 0) >= 2 * n && (taken.get(dir) ?? 0) >= perFamily) continue;
    taken.set(dir, (taken.get(dir) ?? 0) + 1);
    out.push(f);
  }
  return out;
}

function discover(state: OfflineState, offered: ReadonlySet<string>): OfflineStep {
  const q = state.question;
  const planned = plannedDiscovery(q, offered, state.records);
  if (planned.length > 0) {
    const names = q.terms.filter((t) => t.kind !== 'concept').map((t) => `\`${t.text}\``);
    return {
      kind: 'tools',
      note: `(offline model) Searching the project for ${names.join(', ')}.\n`,
      calls: planned,
    };
  }
  // Nothing to search for: show the layout.
  if (!offered.has('Glob')) return { kind: 'report' };
  return {
    kind: 'tools',
    note: '(offline model) Listing the project.\n',
    calls: [{ name: 'Glob', purpose: 'names', input: { pattern: '**/*' } }],
  };
}
