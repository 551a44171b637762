// bench/explore-eval: how often `cadre explore` on the embedded offline model finds the file that
// answers a developer's question, on pinned npm packages nobody on this project wrote, next to
// ripgrep by hand (the question's main word, skipping tests, docs, examples and build output),
// in the same run. Scores hit@1, hit@3 and cited; the held-out questions are reported on their own.
// Goals (held-out): hit@1 ≥ 0.65, hit@3 ≥ 0.85, both ahead of rg; median ≤ 1 s per question on
// the ~3,000-file package.
// Run: npm run build && npx tsx bench/explore-eval.ts [--set tune|held-out|all] [--corpus a,b]
//      [--only id,id] [--repeat N] [--details] [--show-held-out] [--reports]
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { rgRanking } from './explore-eval/baseline.js';
import { explore } from './explore-eval/cadre.js';
import { ensureCorpus, loadCorpora } from './explore-eval/corpora.js';
import { checkEvidence, loadQuestions, type Question } from './explore-eval/questions.js';
import { citedFiles, rates, scoreRanking, type Score } from './explore-eval/score.js';
import { median } from './support/stats.js';
import { writeResult } from './support/stats.js';

const GOALS = { hit1: 0.65, hit3: 0.85, medianMs: 1000 };

interface Outcome {
  q: Question;
  cadre: Score;
  rg: Score;
  ranked: string[];
  rgRanked: string[];
  wallMs: number[];
  cpuMs: number[];
  durationMs: number[];
  rgMs: number[];
  status: string;
  deterministic: boolean;
  report: string;
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const has = (name: string) => process.argv.includes(name);

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && !e.parentPath.includes(`${path.sep}.cadre`)) n++;
  return n;
}

async function ask(q: Question, dir: string, repeat: number): Promise<Outcome> {
  const wallMs: number[] = [];
  const cpuMs: number[] = [];
  const durationMs: number[] = [];
  const rgMs: number[] = [];
  const reports = new Set<string>();
  let ranked: string[] = [];
  let rgRanked: string[] = [];
  let status = '';
  let report = '';
  // rg and cadre alternate, so both see the same machine load.
  for (let i = 0; i < repeat; i++) {
    const rg = await rgRanking(dir, q.rg);
    rgRanked = rg.ranked;
    rgMs.push(rg.ms);
    const run = await explore(dir, q.question);
    wallMs.push(run.wallMs);
    cpuMs.push(run.cpuMs);
    durationMs.push(run.durationMs);
    reports.add(run.report);
    status = run.status;
    report = run.report;
    ranked = citedFiles(run.report, dir);
  }
  return {
    q,
    cadre: scoreRanking(ranked, q.answers),
    rg: scoreRanking(rgRanked, q.answers),
    ranked,
    rgRanked,
    wallMs,
    cpuMs,
    durationMs,
    rgMs,
    status,
    deterministic: reports.size === 1,
    report,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`.padStart(4);

function table(label: string, list: readonly Outcome[]): string {
  const c = rates(list.map((o) => o.cadre));
  const r = rates(list.map((o) => o.rg));
  return `${label.padEnd(22)} n=${String(c.n).padStart(3)}  cadre hit@1 ${pct(c.hit1)} hit@3 ${pct(c.hit3)} cited ${pct(c.cited)}   rg hit@1 ${pct(r.hit1)} hit@3 ${pct(r.hit3)} cited ${pct(r.cited)}`;
}

function groups<K extends string>(list: readonly Outcome[], key: (o: Outcome) => K): Map<K, Outcome[]> {
  const out = new Map<K, Outcome[]>();
  for (const o of list) out.set(key(o), [...(out.get(key(o)) ?? []), o]);
  return new Map([...out].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

function summary(list: readonly Outcome[]) {
  return { cadre: rates(list.map((o) => o.cadre)), rg: rates(list.map((o) => o.rg)) };
}

async function main(): Promise<void> {
  const set = flag('--set') ?? 'all';
  const showHeldOut = has('--show-held-out');
  const repeat = Math.max(1, Number(flag('--repeat') ?? 1));
  const corpusFilter = flag('--corpus')?.split(',');
  const only = flag('--only')?.split(',');
  const corpora = await loadCorpora();
  const questions = (await loadQuestions()).filter(
    (q) =>
      (set === 'all' || (set === 'held-out') === q.heldOut) &&
      (corpusFilter === undefined || corpusFilter.includes(q.corpus)) &&
      (only === undefined || only.includes(q.id)),
  );
  const outcomes: Outcome[] = [];
  const files: Record<string, number> = {};
  for (const [name, corpus] of Object.entries(corpora)) {
    const list = questions.filter((q) => q.corpus === name);
    if (list.length === 0) continue;
    const dir = await ensureCorpus(corpus);
    files[name] = await countFiles(dir);
    for (const q of list) await checkEvidence(q, dir);
    for (const q of list) {
      const o = await ask(q, dir, repeat);
      outcomes.push(o);
      const visible = !q.heldOut || showHeldOut;
      if (visible && has('--details')) {
        const mark = (s: Score) => (s.hit1 ? '1' : s.hit3 ? '3' : s.cited ? 'c' : '-');
        console.log(
          `${q.id.padEnd(11)} ${mark(o.cadre)} rg ${mark(o.rg)} ${median(o.wallMs).toFixed(0).padStart(5)} ms  ${q.kind.padEnd(10)} ${q.question}\n` +
            `            cadre: ${o.ranked.slice(0, 3).join(', ') || '(nothing cited)'}${o.cadre.hit1 ? '' : `   want ${q.answers.join(' | ')}`}`,
        );
      }
      if (visible && has('--reports')) console.log(`\n----- ${q.id}\n${o.report}`);
    }
    // Transcripts of the runs land in the package's .cadre/: the next run starts clean.
    await rm(path.join(dir, '.cadre'), { recursive: true, force: true });
  }

  const sets: [string, Outcome[]][] = [
    ['tune', outcomes.filter((o) => !o.q.heldOut)],
    ['held-out', outcomes.filter((o) => o.q.heldOut)],
    ['all', outcomes],
  ];
  console.log('');
  for (const [label, list] of sets) if (list.length > 0) console.log(table(label, list));
  const tune = outcomes.filter((o) => !o.q.heldOut || showHeldOut);
  if (tune.length > 0) {
    console.log(`\nby kind (${showHeldOut ? 'all' : 'tune'} questions):`);
    for (const [kind, list] of groups(tune, (o) => o.q.kind)) console.log(table(`  ${kind}`, list));
    console.log(`by corpus (${showHeldOut ? 'all' : 'tune'} questions):`);
    for (const [name, list] of groups(tune, (o) => o.q.corpus)) console.log(table(`  ${name}`, list));
  }
  console.log(
    "\ntime per question (median; wall = the whole CLI process, run = the run inside it, cpu = the process's CPU time):",
  );
  const timing: Record<
    string,
    { files: number; wallMs: number; runMs: number; cpuMs: number; rgMs: number }
  > = {};
  for (const [name, list] of groups(outcomes, (o) => o.q.corpus)) {
    const t = {
      files: files[name] ?? 0,
      wallMs: median(list.flatMap((o) => o.wallMs)),
      runMs: median(list.flatMap((o) => o.durationMs)),
      cpuMs: median(list.flatMap((o) => o.cpuMs)),
      rgMs: median(list.flatMap((o) => o.rgMs)),
    };
    timing[name] = t;
    console.log(
      `  ${name.padEnd(8)} ${String(t.files).padStart(5)} files  wall ${t.wallMs.toFixed(0)} ms  run ${t.runMs.toFixed(0)} ms  cpu ${t.cpuMs.toFixed(0)} ms  (rg ${t.rgMs.toFixed(0)} ms)`,
    );
  }
  const failed = outcomes.filter((o) => o.status !== 'completed').map((o) => o.q.id);
  const unstable = outcomes.filter((o) => !o.deterministic).map((o) => o.q.id);
  if (failed.length > 0) console.log(`runs that did not complete: ${failed.join(', ')}`);
  if (repeat > 1) console.log(`reports that changed between repeats: ${unstable.join(', ') || 'none'}`);

  const held = summary(sets[1]?.[1] ?? []);
  const largest = Object.entries(timing).sort((a, b) => b[1].files - a[1].files)[0];
  const goals =
    held.cadre.n === 0
      ? undefined
      : {
          hit1: held.cadre.hit1 >= GOALS.hit1 && held.cadre.hit1 > held.rg.hit1,
          hit3: held.cadre.hit3 >= GOALS.hit3 && held.cadre.hit3 > held.rg.hit3,
          medianMs: largest === undefined ? undefined : largest[1].wallMs <= GOALS.medianMs,
        };
  if (goals !== undefined)
    console.log(
      `\ngoals (held-out): hit@1 ≥ ${GOALS.hit1} and ahead of rg: ${goals.hit1 ? 'met' : 'MISSED'}; hit@3 ≥ ${GOALS.hit3} and ahead of rg: ${goals.hit3 ? 'met' : 'MISSED'}; median ≤ ${GOALS.medianMs} ms on ${largest?.[0]}: ${goals.medianMs ? 'met' : 'MISSED'}`,
    );
  const file = await writeResult('explore-eval', {
    set,
    repeat,
    corpora,
    summary: Object.fromEntries(sets.map(([label, list]) => [label, summary(list)])),
    timing,
    goals,
    failed,
    unstable: repeat > 1 ? unstable : undefined,
    questions: outcomes
      .filter((o) => !o.q.heldOut || showHeldOut)
      .map((o) => ({
        id: o.q.id,
        kind: o.q.kind,
        heldOut: o.q.heldOut,
        cadre: o.cadre,
        rg: o.rg,
        cadreTop3: o.ranked.slice(0, 3),
        rgTop3: o.rgRanked.slice(0, 3),
        wallMs: median(o.wallMs),
      })),
  });
  console.log(`wrote ${file}`);
}

await main();
