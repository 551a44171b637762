// The offline model's report. It leads with a short ranked answer ("Most likely: `path:line` —
// why"), then the evidence: what each term matched across the project (exact file counts), and
// the lines of the best files. Built only from the tool results in the conversation, in a fixed
// order, so the same files always give the same report.
import { gatherEvidence, type Evidence } from './evidence.js';
import { BUDGETS, type OfflineState } from './planner.js';
import { rankFiles, type Ranked } from './ranking.js';
import { discoveryCalls } from './search-plan.js';
import { lineMatcher } from './line-terms.js';
import { isWordLike } from './terms.js';
import { parseDefinitions } from './definitions.js';

/** The first line of every offline report: where it came from and how to get a real model. */
export const OFFLINE_NOTICE =
  "**Offline model** (no API key configured): this report comes from cadre's built-in offline model, a deterministic keyword search, not an LLM. " +
  'To use a real model: `export ANTHROPIC_API_KEY=...`, or set `ANTHROPIC_BASE_URL` for an Anthropic-compatible server, or pass `--model`.';

const MAX_LINE = 140;
/** Files listed per term in the evidence. */
const FILES_PER_TERM = 5;

/** Writes the report for the conversation state; `offered` are the tool names the agent had. */
export function buildReport(state: OfflineState, offered: readonly string[]): string {
  const q = state.question;
  const budget = BUDGETS[q.thoroughness];
  const ev = gatherEvidence(state.records, discoveryCalls(q, new Set(offered)));
  const ranked = rankFiles(q, state.task, ev);
  const top = ranked.slice(0, budget.answers);
  const question = firstLine(state.task).slice(0, 120) || '(no task text)';
  const out: string[] = [OFFLINE_NOTICE, '', `## Answer: ${question}`, ''];
  if (!offered.some((t) => t === 'Glob' || t === 'Grep' || t === 'Read')) {
    out.push(
      'This agent was given none of the search tools (Glob, Grep, Read), so nothing was searched.',
      '',
    );
  } else if (q.terms.length === 0) {
    out.push(
      'The question names nothing to search for (no identifier, file name or word beyond its phrasing).',
      '',
    );
  }
  const [first, ...rest] = top;
  if (first === undefined) {
    if (q.terms.length > 0)
      out.push('Most likely: nothing found. No file mentions what the question names.', '');
  } else {
    out.push(`Most likely: ${answerLine(first)}`);
    if (rest.length > 0) out.push('', 'Also likely:', ...rest.map((r, i) => `${i + 2}. ${answerLine(r)}`));
    out.push('');
  }
  out.push(...evidence(state, ev, top, budget.refsPerFile));
  out.push('## Summary');
  out.push(
    `- Searched: ${ev.known.size} files seen, ${[...ev.definitions.values()].reduce((n, l) => n + l.length, 0)} definition-shaped lines, ${ev.reads.size} files read · thoroughness: ${q.thoroughness}.`,
  );
  if (ranked.length > top.length)
    out.push(
      `- Other candidates: ${ranked
        .slice(top.length, top.length + 5)
        .map((r) => `\`${r.file}\``)
        .join(', ')}.`,
    );
  for (const c of ev.cut) out.push(`- ${c} returned more than it could show: its counts are lower bounds.`);
  for (const f of ev.failures) out.push(`- ${f}`);
  out.push('- Token counts for this run are estimates (characters ÷ 4): no model was called.');
  return `${out.join('\n')}\n`;
}

function answerLine(r: Ranked): string {
  const note = r.kind === 'source' ? '' : ` (${r.kind === 'generated' ? 'generated or bundled' : r.kind})`;
  const quote = r.text.trim() === '' ? '' : `: \`${clip(r.text)}\``;
  return `\`${r.file}:${r.line}\` — ${r.why}${note}${quote}`;
}

/** The evidence section: per term, where it matched; then the best files' lines. */
function evidence(state: OfflineState, ev: Evidence, top: readonly Ranked[], perFile: number): string[] {
  const q = state.question;
  const out: string[] = ['## Evidence', ''];
  const specific = q.terms.filter((t) => !isWordLike(t));
  const words = q.terms.filter((t) => t.kind === 'word');
  out.push(
    `Searched for: ${
      q.terms
        .filter((t) => t.kind !== 'concept')
        .map((t) => `\`${t.text}\``)
        .join(', ') || '(nothing)'
    }${
      q.terms.some((t) => t.kind === 'concept')
        ? ` (and related names: ${q.terms
            .filter((t) => t.kind === 'concept')
            .map((t) => `\`${t.text}\``)
            .join(', ')})`
        : ''
    }.`,
    '',
  );
  for (const t of specific) {
    const counts = ev.termCounts.get(t);
    if (counts === undefined) continue;
    const files = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const lines = files.reduce((n, [, c]) => n + c, 0);
    out.push(
      files.length === 0
        ? `- \`${t.text}\`: no matches.`
        : `- \`${t.text}\`: ${lines} matching line${lines === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'} (most: ${files
            .slice(0, FILES_PER_TERM)
            .map(([f, c]) => `\`${f}\` ${c}`)
            .join(', ')}).`,
    );
  }
  if (words.length > 0)
    out.push(`- Words ${words.map((w) => `\`${w.text}\``).join(', ')}: in ${ev.wordCounts.size} files.`);
  out.push('');
  const matcher = lineMatcher(q.terms);
  for (const r of top.filter((x) => x.read).slice(0, 3)) {
    const lines = ev.reads.get(r.file)?.lines ?? [];
    const picked = lines
      .map((l) => ({
        l,
        w:
          matcher.termsIn(l.text).reduce((s, t) => s + t.weight, 0) +
          (parseDefinitions(l.text).length > 0 && matcher.termsIn(l.text).some((t) => !isWordLike(t))
            ? 2
            : 0),
      }))
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
