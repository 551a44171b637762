// The offline model's report. It leads with a short ranked answer ("Most likely: `path:line` —
// why"), then the evidence: where each term the question names was found in the files read, and
// their telling lines. Built only from the tool results in the conversation, in a fixed order, so
// the same files always give the same report.
import { analyse, type Analysis } from './analysis.js';
import { parseDefinitions } from './definitions.js';
import { lineMatcher } from './line-terms.js';
import type { OfflineState } from './conversation.js';
import { BUDGETS } from './planner.js';
import type { Ranked } from './ranking.js';
import { isWordLike } from './terms.js';

/** The first line of every offline report: where it came from and how to get a real model. */
export const OFFLINE_NOTICE =
  "**Offline model** (no API key configured): this report comes from cadre's built-in offline model, a deterministic keyword search, not an LLM. " +
  'To use a real model: `export ANTHROPIC_API_KEY=...`, or set `ANTHROPIC_BASE_URL` for an Anthropic-compatible server, or pass `--model`.';

const MAX_LINE = 140;
/** Files named per term in the evidence. */
const FILES_PER_TERM = 4;
/** Files whose lines are quoted in the evidence. */
const QUOTED_FILES = 3;

/**
 * Writes the report for the conversation state; `offered` are the tool names the agent had, and
 * `analysis` the planner's, when it made one for this state.
 */
export function buildReport(state: OfflineState, offered: readonly string[], analysis?: Analysis): string {
  const q = state.question;
  const budget = BUDGETS[q.thoroughness];
  const { evidence: ev, ranked } = analysis ?? analyse(q, state.task, state.records, new Set(offered));
  const top = ranked.slice(0, budget.answers);
  const question = firstLine(state.task).slice(0, 120) || '(no task text)';
  const out: string[] = [OFFLINE_NOTICE, '', `## Answer: ${question}`, ''];
  if (!offered.some((t) => t === 'Glob' || t === 'Grep' || t === 'Read'))
    out.push(
      'This agent was given none of the search tools (Glob, Grep, Read), so nothing was searched.',
      '',
    );
  else if (q.terms.length === 0)
    out.push(
      'The question names nothing to search for (no identifier, file name or word beyond its phrasing).',
      '',
    );
  const [first, ...rest] = top;
  if (first !== undefined) {
    out.push(`Most likely: ${answerLine(first)}`);
    if (rest.length > 0) out.push('', 'Also likely:', ...rest.map((r, i) => `${i + 2}. ${answerLine(r)}`));
    out.push('');
  } else if (q.terms.length > 0) {
    out.push('Most likely: nothing found. No file mentions what the question names.', '');
  }
  out.push(...evidence(state, analysis ?? { evidence: ev, ranked }, top, budget.refsPerFile));
  out.push('## Summary');
  const holding = [
    ev.mentions.size > 0 ? `${count(ev.mentions.size, 'file')} hold the names it gives` : '',
    ev.words.size > 0 ? `${count(ev.words.size, 'file')} hold its words` : '',
  ].filter((x) => x !== '');
  out.push(
    `- Searched the project's code for the question: ${holding.length > 0 ? `${holding.join(', ')}; ` : ''}${count(ev.definitionLines, 'definition-shaped line')} found; ${count(ev.reads.size, 'file')} read · thoroughness: ${q.thoroughness}.`,
  );
  if (ranked.length > top.length)
    out.push(
      `- Other candidates: ${ranked
        .slice(top.length, top.length + 5)
        .map((r) => `\`${r.file}\``)
        .join(', ')}.`,
    );
  for (const c of ev.cut)
    out.push(`- ${c} returned more than it could show: what it found is a lower bound.`);
  for (const f of ev.failures) out.push(`- ${f}`);
  out.push('- Token counts for this run are estimates (characters ÷ 4): no model was called.');
  return `${out.join('\n')}\n`;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function answerLine(r: Ranked): string {
  const kind = r.kind === 'source' ? [] : [r.kind === 'generated' ? 'generated or bundled' : r.kind];
  const notes = [...kind, ...(r.read ? [] : ['not read'])];
  const note = notes.length === 0 ? '' : ` (${notes.join(', ')})`;
  const quote = r.text.trim() === '' ? '' : `: \`${clip(r.text)}\``;
  return `\`${r.file}:${r.line}\` — ${r.why}${note}${quote}`;
}

/** The evidence section: what was searched, where each term is in the files read, their lines. */
function evidence(
  state: OfflineState,
  analysis: Analysis,
  top: readonly Ranked[],
  perFile: number,
): string[] {
  const q = state.question;
  const ev = analysis.evidence;
  const own = q.terms.filter((t) => t.kind !== 'concept');
  const related = q.terms.filter((t) => t.kind === 'concept');
  const out: string[] = ['## Evidence', ''];
  const asked = own.map((t) => `\`${t.text}\``).join(', ') || '(nothing)';
  const widened =
    related.length > 0 ? ` (and related names: ${related.map((t) => `\`${t.text}\``).join(', ')})` : '';
  out.push(`Searched for: ${asked}${widened}.`, '');
  const matcher = lineMatcher(own);
  const reads = [...ev.reads].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const specific = own.filter((x) => !isWordLike(x));
  for (const t of specific) {
    const counts = reads
      .map(([file, r]) => [file, r.lines.filter((l) => matcher.has(l.text, t)).length] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const where = counts
      .slice(0, FILES_PER_TERM)
      .map(([f, n]) => `\`${f}\` (${n} line${n === 1 ? '' : 's'})`)
      .join(', ');
    out.push(
      `- \`${t.text}\`: ${counts.length === 0 ? 'not in the files read' : `in the files read, ${where}`}.`,
    );
  }
  if (specific.length > 0) out.push('');
  // Lines of the best files that hold the question's own terms, definitions first.
  for (const r of top.filter((x) => x.read).slice(0, QUOTED_FILES)) {
    const picked = (ev.reads.get(r.file)?.lines ?? [])
      .map((l) => {
        const found = matcher.termsIn(l.text);
        const defined = found.length > 0 && parseDefinitions(l.text).length > 0 ? 2 : 0;
        return { l, w: found.reduce((s, t) => s + t.weight, 0) + defined };
      })
      .filter((x) => x.w > 0 && x.l.line !== r.line)
      .sort((a, b) => b.w - a.w || a.l.line - b.l.line)
      .slice(0, perFile)
      .sort((a, b) => a.l.line - b.l.line);
    if (picked.length === 0) continue;
    out.push(`### \`${r.file}\``);
    for (const { l } of picked) out.push(`- \`${r.file}:${l.line}\`: \`${clip(l.text)}\``);
    out.push('');
  }
  return out;
}

const firstLine = (s: string) => (s.split('\n').find((l) => l.trim() !== '') ?? '').trim();
const clip = (s: string) => {
  const t = s.trim().replace(/`/g, "'");
  return t.length > MAX_LINE ? `${t.slice(0, MAX_LINE)}…` : t;
};
