// The offline model's brain: reads the conversation (the task, its own earlier tool calls and
// their results) and decides the next step: discovery (definitions, counts and names, all in one
// turn), confirmation (Read the best candidates, and once more if reading changed the top three),
// or the final report. Stateless: everything it knows is in the messages.
import type { ConversationMessage } from '../../../shared/events.js';
import type { ModelRequest } from '../model-client.js';
import { gatherEvidence } from './evidence.js';
import { readQuestion, type QuestionTerms, type Thoroughness } from './question.js';
import { rankFiles } from './ranking.js';
import { discoveryCalls, MANIFEST, MANIFEST_READ, readCalls, type PlannedCall } from './search-plan.js';

/** A tool call the offline model made, with what came back. */
export interface ToolRecord {
  id: string;
  name: string;
  input: Record<string, unknown>;
  content: string;
  isError: boolean;
}

/** What the conversation tells the offline model. */
export interface OfflineState {
  task: string;
  question: QuestionTerms;
  /** How many assistant turns it has taken on this task. */
  phase: number;
  records: ToolRecord[];
}

/** The next step: tool calls (with a one-line note), or the report. */
export type OfflineStep = { kind: 'tools'; note: string; calls: PlannedCall[] } | { kind: 'report' };

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

type Block = Record<string, unknown>;
const blocksOf = (m: ConversationMessage): Block[] =>
  typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
const textOf = (m: ConversationMessage): string =>
  blocksOf(m)
    .map((b) => (b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : ''))
    .join('\n')
    .trim();
const isPrompt = (m: ConversationMessage | undefined): boolean =>
  m !== undefined &&
  m.role === 'user' &&
  textOf(m) !== '' &&
  !blocksOf(m).some((b) => b['type'] === 'tool_result');

/** Reads the task and the tool history out of the conversation. */
export function readState(messages: readonly ConversationMessage[]): OfflineState {
  // The task is the latest prompt; a run of prompts (the task, then a grace note) counts from its first.
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (!isPrompt(messages[i])) continue;
    start = i;
    while (start > 0 && isPrompt(messages[start - 1])) start--;
    break;
  }
  const task = start >= 0 ? textOf(messages[start] as ConversationMessage) : '';
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  const records: ToolRecord[] = [];
  let phase = 0;
  for (const m of messages.slice(start + 1)) {
    if (m.role === 'assistant') phase++;
    for (const b of blocksOf(m)) {
      if (b['type'] === 'tool_use' && typeof b['id'] === 'string') {
        const input =
          typeof b['input'] === 'object' && b['input'] !== null
            ? (b['input'] as Record<string, unknown>)
            : {};
        calls.set(b['id'], { name: String(b['name']), input });
      } else if (b['type'] === 'tool_result' && typeof b['tool_use_id'] === 'string') {
        const call = calls.get(b['tool_use_id']);
        if (call !== undefined)
          records.push({
            id: b['tool_use_id'],
            ...call,
            content: resultText(b['content']),
            isError: b['is_error'] === true,
          });
      }
    }
  }
  return { task, question: readQuestion(task), phase, records };
}

/** Whether discovery found a package.json at the top of the project. */
function hasManifest(records: readonly ToolRecord[]): boolean {
  return records.some(
    (r) =>
      r.name === 'Glob' &&
      r.input['pattern'] === MANIFEST &&
      !r.isError &&
      r.content.split('\n').some((l) => l.trim() === MANIFEST),
  );
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c: unknown) =>
      typeof c === 'object' && c !== null && typeof (c as Block)['text'] === 'string'
        ? (c as Block)['text']
        : '',
    )
    .join('\n');
}

/** Decides the next step for a request. */
export function planStep(request: ModelRequest, state: OfflineState): OfflineStep {
  const offered = new Set(request.tools.map((t) => t.name));
  if (request.toolChoice === 'none' || offered.size === 0) return { kind: 'report' };
  const q = state.question;
  const planned = discoveryCalls(q, offered);
  if (state.phase === 0) {
    if (planned.length === 0) {
      // Nothing to search for: show the layout.
      if (!offered.has('Glob')) return { kind: 'report' };
      return {
        kind: 'tools',
        note: '(offline model) Listing the project.\n',
        calls: [{ name: 'Glob', purpose: 'names', input: { pattern: '**/*' } }],
      };
    }
    const names = q.terms.filter((t) => t.kind !== 'concept').map((t) => `\`${t.text}\``);
    return {
      kind: 'tools',
      note: `(offline model) Searching the project for ${names.join(', ')}.\n`,
      calls: planned,
    };
  }
  if (state.phase > 2 || !offered.has('Read')) return { kind: 'report' };
  const budget = BUDGETS[q.thoroughness];
  const read = new Set(
    state.records.filter((r) => r.name === 'Read').map((r) => String(r.input['file_path'])),
  );
  const ranked = rankFiles(q, state.task, gatherEvidence(state.records, planned));
  // First confirmation: the best candidates; a second only when reading changed the top three.
  const pool = state.phase === 1 ? ranked.slice(0, budget.readFiles) : ranked.slice(0, 3);
  const files = pool.map((r) => r.file).filter((f) => !read.has(f));
  if (files.length === 0) return { kind: 'report' };
  const calls = readCalls(files, budget.readLines);
  if (state.phase === 1 && hasManifest(state.records)) calls.push(MANIFEST_READ);
  return {
    kind: 'tools',
    note: `(offline model) Reading ${files.length === 1 ? 'the best candidate' : `the ${files.length} best candidates`} to confirm.\n`,
    calls,
  };
}
