// The offline model's brain: reads the conversation (the task, its own earlier tool calls and
// their results) and decides the next step: discovery (Glob + Grep), detail (Grep -n + Read of
// the best files), or the final report. Stateless: everything it knows is in the messages.
import type { ConversationMessage } from '../../../shared/events.js';
import type { ModelRequest } from '../model-client.js';
import { BUDGETS, extractTerms, grepPattern, type TaskTerms } from './keywords.js';
import { parseFileList } from './tool-output.js';

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
  terms: TaskTerms;
  /** How many assistant turns it has taken on this task. */
  phase: number;
  records: ToolRecord[];
}

/** A planned tool call. */
export interface PlannedCall {
  name: string;
  input: Record<string, unknown>;
}

/** The next step: tool calls (with a one-line note), or the report. */
export type OfflineStep = { kind: 'tools'; note: string; calls: PlannedCall[] } | { kind: 'report' };

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
  return { task, terms: extractTerms(task), phase, records };
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
  if (request.toolChoice === 'none' || offered.size === 0 || state.phase >= 2) return { kind: 'report' };
  const calls = state.phase === 0 ? discovery(state.terms, offered) : detail(state, offered);
  if (calls.length === 0) return { kind: 'report' };
  const names = state.terms.keywords.map((k) => `\`${k.text}\``).join(', ');
  const tools = [...new Set(calls.map((c) => c.name))].join(' and ');
  const note =
    state.phase === 0
      ? `(offline model) Searching the project for ${names || 'its files'} with ${tools}.\n`
      : `(offline model) Looking closer with ${tools}.\n`;
  return { kind: 'tools', note, calls };
}

function discovery(terms: TaskTerms, offered: Set<string>): PlannedCall[] {
  const calls: PlannedCall[] = [];
  const globs = terms.keywords.flatMap((k) => (k.glob === undefined ? [] : [k.glob])).slice(0, 3);
  const pattern = grepPattern(terms.keywords);
  if (offered.has('Glob')) {
    for (const glob of globs) calls.push({ name: 'Glob', input: { pattern: glob } });
    if (globs.length === 0 || terms.keywords.some((k) => k.glob === undefined))
      calls.push({ name: 'Glob', input: { pattern: '**/*' } });
  }
  if (offered.has('Grep') && pattern !== undefined) {
    calls.push({ name: 'Grep', input: { pattern, '-i': true, output_mode: 'files_with_matches' } });
  }
  if (calls.length === 0 && offered.has('Read')) {
    // Nothing to search with: read the files the task names outright.
    const budget = BUDGETS[terms.thoroughness];
    for (const k of terms.keywords
      .filter((k) => k.kind === 'file' && k.term !== undefined)
      .slice(0, budget.readFiles)) {
      calls.push({ name: 'Read', input: { file_path: k.text, limit: budget.readLines } });
    }
  }
  return calls;
}

function detail(state: OfflineState, offered: Set<string>): PlannedCall[] {
  const calls: PlannedCall[] = [];
  const budget = BUDGETS[state.terms.thoroughness];
  const pattern = grepPattern(state.terms.keywords);
  if (offered.has('Grep') && pattern !== undefined) {
    calls.push({
      name: 'Grep',
      input: { pattern, '-i': true, '-n': true, output_mode: 'content', head_limit: budget.grepLines },
    });
  }
  if (offered.has('Read')) {
    const alreadyRead = new Set(
      state.records.filter((r) => r.name === 'Read').map((r) => String(r.input['file_path'])),
    );
    const files = rankFiles(state, !offered.has('Grep')).filter((f) => !alreadyRead.has(f));
    for (const file of files.slice(0, budget.readFiles))
      calls.push({ name: 'Read', input: { file_path: file, limit: budget.readLines } });
  }
  return calls;
}

/** Build output, vendored code, generated typings and hidden directories: found, but read last. */
export const LOW_VALUE = /(?:^|\/)(?:dist|build|out|vendor|coverage|\.[^/]+)\/|\.d\.ts$|\.min\.[a-z]+$/i;

const BINARY =
  /\.(?:png|jpe?g|gif|ico|webp|pdf|zip|gz|tgz|jar|woff2?|ttf|otf|mp[34]|wasm|lock|map)$|(?:^|\/)package-lock\.json$/i;

/**
 * Files worth reading, best first: those Grep found, those whose path names a keyword, the file
 * names the task gave. With `fallback` (no Grep to narrow things down) and no such file, any file, READMEs first.
 */
export function rankFiles(state: OfflineState, fallback: boolean): string[] {
  const listed = new Set<string>();
  const grepped = new Set<string>();
  for (const r of state.records) {
    if (r.isError) continue;
    if (r.name === 'Glob') for (const f of parseFileList(r.content)) listed.add(f);
    if (r.name === 'Grep' && r.input['output_mode'] === 'files_with_matches') {
      for (const f of parseFileList(r.content)) grepped.add(f);
    }
  }
  const scored = [...new Set([...listed, ...grepped])]
    .filter((f) => !BINARY.test(f))
    .map((file) => {
      const lower = file.toLowerCase();
      const base = lower.split('/').pop() ?? lower;
      let score = grepped.has(file) ? 4 : 0;
      for (const k of state.terms.keywords) {
        if (k.kind === 'file' && base === (k.text.split('/').pop() ?? '').toLowerCase()) score += 6;
        if (k.term !== undefined && lower.includes(k.term.toLowerCase())) score += 3;
      }
      if (score > 0 && LOW_VALUE.test(file)) score -= 3;
      return { file, score, readme: /^readme/i.test(base) };
    });
  scored.sort((a, b) => b.score - a.score || Number(b.readme) - Number(a.readme) || compare(a.file, b.file));
  const useful = scored.filter((s) => s.score > 0);
  return (useful.length > 0 || !fallback ? useful : scored).map((s) => s.file);
}

/** Code-unit order: the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
