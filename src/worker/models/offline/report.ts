// The offline model's findings report: per keyword the files and `path:line` references with the
// matching line, then a short summary. Built only from the tool results in the conversation, in a
// fixed order, so the same files always give the same report.
import { BUDGETS, type Keyword } from './keywords.js';
import { compare, LOW_VALUE, rankFiles, type OfflineState, type ToolRecord } from './planner.js';
import {
  globToRegExp,
  parseFileList,
  parseGrepContent,
  parseReadContent,
  type LineRef,
} from './tool-output.js';

/** The first line of every offline report: where it came from and how to get a real model. */
export const OFFLINE_NOTICE =
  "**Offline model** (no API key configured): this report comes from cadre's built-in offline model, a deterministic keyword search, not an LLM. " +
  'To use a real model: `export ANTHROPIC_API_KEY=...`, or set `ANTHROPIC_BASE_URL` for an Anthropic-compatible server, or pass `--model`.';

const MAX_LINE = 160;

/** Writes the report for the conversation state; `offered` are the tool names the agent had. */
export function buildReport(state: OfflineState, offered: readonly string[]): string {
  const { terms, records } = state;
  const budget = BUDGETS[terms.thoroughness];
  const listed = new Set<string>();
  const grepped = new Set<string>();
  const lines = new Map<string, LineRef>();
  const failures: string[] = [];
  let readCount = 0;
  for (const r of records) {
    if (r.isError) {
      failures.push(`${r.name} ${describeInput(r)} failed: ${firstLine(r.content)}`);
      continue;
    }
    if (r.name === 'Glob') for (const f of parseFileList(r.content)) listed.add(f);
    else if (r.name === 'Grep' && r.input['output_mode'] === 'files_with_matches')
      for (const f of parseFileList(r.content)) grepped.add(f);
    else if (r.name === 'Grep') for (const ref of parseGrepContent(r.content)) lines.set(key(ref), ref);
    else if (r.name === 'Read') {
      readCount++;
      const path = String(r.input['file_path']);
      for (const ref of parseReadContent(r.content, path, Number(r.input['offset'] ?? 1)))
        if (!lines.has(key(ref))) lines.set(key(ref), ref);
    }
  }
  for (const ref of lines.values()) grepped.add(ref.path);

  const out: string[] = [
    OFFLINE_NOTICE,
    '',
    `## Findings: ${firstLine(state.task).slice(0, 120) || '(no task text)'}`,
    '',
  ];
  const keywordList = terms.keywords.map((k) => `\`${k.text}\``).join(', ');
  out.push(
    `Keywords: ${keywordList || '(none found in the task)'} · thoroughness: ${terms.thoroughness}`,
    '',
  );
  if (!offered.some((t) => t === 'Glob' || t === 'Grep' || t === 'Read')) {
    out.push(
      'This agent was given none of the search tools (Glob, Grep, Read), so nothing was searched.',
      '',
    );
  }

  // Files with the most matching lines (over all keywords) lead every list; build output and vendored code trail.
  const hits = new Map<string, number>();
  const refsByKeyword = terms.keywords.map((k) => refsFor(k, lines));
  for (const refs of refsByKeyword) for (const r of refs) hits.set(r.path, (hits.get(r.path) ?? 0) + 1);
  // A path that names the keywords (src/worker/tools for "worker tools") says more than a test
  // that mentions them often.
  const pathScore = (f: string) =>
    terms.keywords.filter((k) => k.term !== undefined && f.toLowerCase().includes(k.term.toLowerCase()))
      .length - Number(TEST_LIKE.test(f));
  const byRelevance = (a: string, b: string) =>
    Number(LOW_VALUE.test(a)) - Number(LOW_VALUE.test(b)) ||
    pathScore(b) - pathScore(a) ||
    (hits.get(b) ?? 0) - (hits.get(a) ?? 0) ||
    compare(a, b);
  const missing: string[] = [];
  for (const [i, k] of terms.keywords.entries()) {
    const refs = (refsByKeyword[i] ?? []).sort((a, b) => byRelevance(a.path, b.path) || a.line - b.line);
    const named = [...listed, ...grepped].filter((f) => namesKeyword(f, k));
    const files = [...new Set([...refs.map((r) => r.path), ...named])].sort(byRelevance);
    out.push(`### \`${k.text}\``);
    if (files.length === 0) {
      missing.push(k.text);
      out.push('No matches.', '');
      continue;
    }
    out.push(
      `Files (${files.length}): ${files
        .slice(0, 12)
        .map((f) => `\`${f}\``)
        .join(', ')}${files.length > 12 ? ', …' : ''}`,
    );
    for (const r of refs.slice(0, budget.refsPerKeyword))
      out.push(`- \`${r.path}:${r.line}\`: \`${clip(r.text)}\``);
    if (refs.length > budget.refsPerKeyword)
      out.push(`- … and ${refs.length - budget.refsPerKeyword} more matching lines`);
    out.push('');
  }

  out.push('## Summary');
  out.push(
    `- Searched: ${listed.size} files listed, ${grepped.size} with a keyword match, ${readCount} read.`,
  );
  const top = [...hits.entries()].sort((a, b) => byRelevance(a[0], b[0])).slice(0, 5);
  const best =
    top.length > 0
      ? top.map(([f, n]) => `\`${f}\` (${n})`)
      : rankFiles(state, false)
          .slice(0, 5)
          .map((f) => `\`${f}\``);
  out.push(`- Most relevant files: ${best.length > 0 ? best.join(', ') : 'none found'}.`);
  if (missing.length > 0) out.push(`- No matches for: ${missing.map((m) => `\`${m}\``).join(', ')}.`);
  for (const f of failures) out.push(`- ${f}`);
  out.push('- Token counts for this run are estimates (characters ÷ 4): no model was called.');
  return `${out.join('\n')}\n`;
}

function refsFor(k: Keyword, lines: Map<string, LineRef>): LineRef[] {
  if (k.term === undefined) return [];
  const needle = k.term.toLowerCase();
  return [...lines.values()].filter((r) => r.text.toLowerCase().includes(needle));
}

function namesKeyword(file: string, k: Keyword): boolean {
  if (k.glob !== undefined && globToRegExp(k.glob).test(file)) return true;
  const base = (file.split('/').pop() ?? file).toLowerCase();
  return k.term !== undefined && base.includes(k.term.toLowerCase());
}

const TEST_LIKE = /(?:^|\/)(?:test|tests|__tests__|spec)\/|\.(?:test|spec)\.[a-z]+$/i;
const key = (r: LineRef) => `${r.path}:${r.line}`;
const firstLine = (s: string) => (s.split('\n').find((l) => l.trim() !== '') ?? '').trim();
const clip = (s: string) => {
  const t = s.trim().replace(/`/g, "'");
  return t.length > MAX_LINE ? `${t.slice(0, MAX_LINE)}…` : t;
};

function describeInput(r: ToolRecord): string {
  const arg = r.input['pattern'] ?? r.input['file_path'];
  return typeof arg === 'string' ? `\`${arg}\`` : '';
}
