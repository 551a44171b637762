// bench/fanout: a lead fans out to N subagents, each making Glob, Read and answering, 300 ms per
// model call on the fake server (ideal critical path: 1500 ms).
// Headline, the CLI as a user starts it (a fresh `cadre run` process each time, the server in a
// process of its own), N = 1, 4, 8, 16, 32, medians of interleaved rounds: active ÷ ideal, spawn
// (the lead's Task reply to the children's first requests), the children's start spread, process
// start to first request, peak RSS and CPU. Then the warm pool, in this process: wall ÷ ideal at
// N = 1, 8, 32, the launch overhead per subagent and the runtime's own CPU per subagent.
// Run: npm run build && npx tsx bench/fanout.ts [--only cold|warm] [--rounds 3] [--sizes 1,4,8,16,32]
//        [--build label=dir ...]  (A/B: each dir a copy of dist/ inside this checkout, e.g. .scratch/a/dist)
//        [--stream-ms 10]  (fresh process only: the lead's Task reply written one SSE event every
//        10 ms, as a model writes it, instead of whole; its writing time joins the ideal path)
//        [--history first,repeat,after16,preset]  (fresh process only: a first run in the project, a
//        run after one of the same size, N = 1 after one of N = 16, a first run with prestartThreads
//        set to N; cadre remembers how wide a lead fanned out in a project, so these differ)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { COLD_HISTORIES, runColdFanout, type ColdHistory, type ColdRow } from './support/fanout-cold.js';
import { runWarmFanout, type WarmResult } from './support/fanout-warm.js';
import { writeResult } from './support/stats.js';

const CALL_MS = 300;
const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    sizes: { type: 'string', default: '1,4,8,16,32' },
    build: { type: 'string', multiple: true },
    'stream-ms': { type: 'string', default: '0' },
    history: { type: 'string', default: COLD_HISTORIES.join(',') },
  },
});
const rounds = Number(args.rounds);
const sizes = args.sizes.split(',').map(Number);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds: expected a count, got ${args.rounds}`);
if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 1000))
  throw new Error(`--sizes: expected a comma list of counts, got ${args.sizes}`);
const streamMs = Number(args['stream-ms']);
if (!Number.isInteger(streamMs) || streamMs < 0 || streamMs > 1000)
  throw new Error(`--stream-ms: expected milliseconds from 0 to 1000, got ${args['stream-ms']}`);
/** How each history reads in the table. */
const HISTORY_LABEL: Record<ColdHistory, string> = {
  first: 'first run',
  repeat: 'repeat run',
  after16: 'after N=16',
  preset: 'prestartThreads N',
};

const histories = args.history.split(',') as ColdHistory[];
if (histories.length === 0 || histories.some((h) => !COLD_HISTORIES.includes(h)))
  throw new Error(`--history: expected a comma list of ${COLD_HISTORIES.join(', ')}, got ${args.history}`);
const builds = (args.build ?? ['current=dist']).map((spec) => {
  const [label, dist] = spec.includes('=') ? spec.split('=', 2) : [spec, spec];
  return { label: label!, dist: dist! };
});

const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-fanout-'));
await mkdir(path.join(root, 'src'), { recursive: true });
for (let i = 0; i < 20; i++)
  await writeFile(path.join(root, 'src', `m${i}.ts`), `export const v${i} = ${i};\n`);
// A user fanning out 32 at once raises the caps (defaults: 16 active runs, 16 Task calls a message).
const cap = Math.max(32, ...sizes);
await mkdir(path.join(root, '.cadre'), { recursive: true });
await writeFile(
  path.join(root, '.cadre', 'config.json'),
  JSON.stringify({ concurrency: cap, maxTasksPerMessage: cap }),
);

let cold: ColdRow[] | undefined;
let warm: WarmResult[] | undefined;
try {
  if (args.only !== 'warm') {
    const result = await runColdFanout({
      root,
      callMs: CALL_MS,
      sizes,
      rounds,
      streamMs,
      builds,
      histories,
      onRun: (run, i, total) =>
        process.stderr.write(
          `\r  fresh process ${i}/${total}: ${run.build} ${run.history} N=${run.n} ${run.ok ? 'ok' : 'FAILED'}    `,
        ),
    });
    process.stderr.write('\n');
    cold = result.rows;
    printCold(cold);
  }
  if (args.only !== 'cold') {
    warm = await runWarmFanout(root, CALL_MS, builds);
    for (const result of warm) printWarm(result);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
console.log(
  `written to ${await writeResult('fanout', { callMs: CALL_MS, streamMs, rounds, builds, histories, cold, warm })}`,
);

function printCold(rows: ColdRow[]): void {
  const how = streamMs > 0 ? `, the lead's Task reply streamed (an SSE event every ${streamMs} ms)` : '';
  console.log(
    `\nfresh process (the CLI as a user starts it)${how}, medians of ${rounds} interleaved rounds:`,
  );
  console.table(
    rows.map((r) => ({
      build: r.build,
      history: HISTORY_LABEL[r.history],
      n: r.n,
      'active÷ideal': r.ratio.toFixed(3),
      'spawn ms': r.spawnMs.toFixed(0),
      'spread ms': r.spreadMs.toFixed(0),
      'start→1st req ms': r.startToFirstMs.toFixed(0),
      'peak RSS MB': r.maxRssMb.toFixed(0),
      'CPU s': r.cpuSeconds.toFixed(2),
      failed: r.failed,
    })),
  );
  for (const history of histories.filter((h) => h !== 'after16'))
    for (const { label } of builds) printGoals(rows, label, history);
  for (const { label } of builds) {
    const wrong = rows.find((r) => r.build === label && r.history === 'after16');
    const first = rows.find((r) => r.build === label && r.history === 'first' && r.n === 1);
    if (wrong)
      console.log(
        `${label}: N=1 after N=16: peak RSS ${wrong.maxRssMb.toFixed(0)} MB, CPU ${wrong.cpuSeconds.toFixed(2)} s, active ÷ ideal ${wrong.ratio.toFixed(3)}` +
          (first
            ? ` (a first run of N=1: ${first.maxRssMb.toFixed(0)} MB, ${first.cpuSeconds.toFixed(2)} s, ${first.ratio.toFixed(3)})`
            : ''),
      );
  }
}

/** One build's figures against the goals, for one history. */
function printGoals(rows: ColdRow[], label: string, history: ColdHistory): void {
  const at = (n: number) => rows.find((r) => r.build === label && r.history === history && r.n === n);
  const goal = (n: number, limit: number) => {
    const row = at(n);
    return row ? `N=${n} ${row.ratio.toFixed(3)} (goal ≤ ${limit})` : undefined;
  };
  const line = [goal(8, 1.12), goal(16, 1.25), goal(32, 1.4)].filter(Boolean).join(', ');
  const n16 = at(16);
  const n1 = at(1);
  // The cost of one more agent is the slope from N = 16 to N = 32 (else from N = 8, else N = 1):
  // a few threads (prestartThreads) are started ahead of a lead's Task blocks and resident whether
  // or not they run, so a small N holds more threads than it uses.
  const from = at(32) ?? at(8) ?? n1;
  const perAgent =
    n16 && from && from.n !== 16
      ? { mb: (from.maxRssMb - n16.maxRssMb) / (from.n - 16), from: from.n }
      : undefined;
  console.log(
    [
      `${label}, ${HISTORY_LABEL[history]}: active ÷ ideal ${line}`,
      n16
        ? `  N=16: spawn ${n16.spawnMs.toFixed(0)} ms (goal ≤ 150), spread ${n16.spreadMs.toFixed(0)} ms, peak RSS ${n16.maxRssMb.toFixed(0)} MB (goal ≤ 250)` +
          (perAgent === undefined
            ? ''
            : `, ${perAgent.mb.toFixed(1)} MB per extra agent, N=16 to N=${perAgent.from} (goal ≤ 8)`)
        : '',
      n1 ? `  process start → first request ${n1.startToFirstMs.toFixed(0)} ms (goal ≤ 200)` : '',
    ]
      .filter(Boolean)
      .join('\n'),
  );
}

function printWarm(result: WarmResult): void {
  const at = (n: number) => result.rows.find((r) => r.n === n)!;
  console.log(
    `\n${result.build}: warm pool (library, threads already started), medians of 5 interleaved runs:`,
  );
  console.table(result.rows);
  console.log(
    [
      `wall ÷ ideal: N=1 ${at(1).ratio.toFixed(3)}, N=8 ${at(8).ratio.toFixed(3)}, N=32 ${at(32).ratio.toFixed(3)} (range ${at(32).ratioMin.toFixed(3)}-${at(32).ratioMax.toFixed(3)})`,
      `launch overhead per subagent: ${result.singleLaunchMs.toFixed(1)} ms median one at a time (goal ≤ 5); ${at(8).launchOverheadMedianMs.toFixed(1)} ms when 8 start at once, ${at(32).launchOverheadMedianMs.toFixed(1)} ms when 32 do`,
      `CPU per subagent, the runtime's own: ${result.warmCpuPerSubagent.toFixed(3)} s at N=32 (goal ≤ 0.03)`,
    ].join('\n'),
  );
}
