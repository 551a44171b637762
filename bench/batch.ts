// bench/batch: `cadre batch` over 1,000 and 10,000 tasks on a zero-latency fake server, side by
// side: throughput (tasks/s) and peak RSS, and the RSS ratio 10,000 : 1,000. Then the memory of a
// run whose model streams a 100 MB reply (bench/support/huge-reply.ts).
// Run: npm run build && npx tsx bench/batch.ts [--only tasks|reply] [--build label=dir ...] [--rounds 1]
// (several builds, each a copy of dist/ inside this checkout, take turns; figures are medians)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeAnthropic, textReply } from '../test/support/fake-anthropic.js';
import { runCli } from './support/cli.js';
import { hugeReplyMemory } from './support/huge-reply.js';
import { median, writeResult } from './support/stats.js';

const { values: args } = parseArgs({
  options: {
    build: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const builds = (args.build ?? ['current=dist']).map((spec) => {
  const [label, dist] = spec.includes('=') ? spec.split('=', 2) : [spec, spec];
  return { label: label!, dist: dist! };
});

const only = args.only;
const server = await startFakeAnthropic({ latencyMs: 0, logLimit: 100, responder: () => textReply('ok') });
const agents = JSON.stringify({ echo: { description: 'echo', prompt: 'Answer briefly.', tools: ['Read'] } });
const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };

async function batch(count: number, dist: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-batch-'));
  const tasks = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `t${i}`, agent: 'echo', prompt: `task ${i}` }),
  ).join('\n');
  await writeFile(path.join(dir, 'tasks.jsonl'), `${tasks}\n`);
  const run = await runCli(
    [
      'batch',
      'tasks.jsonl',
      '--out',
      'results.jsonl',
      '--concurrency',
      '16',
      '--agents',
      agents,
      '--cwd',
      dir,
    ],
    env,
    dir,
    [],
    dist,
  );
  const lines = (await readFile(path.join(dir, 'results.jsonl'), 'utf8')).trim().split('\n');
  const completed = lines.filter((l) => l.includes('"status":"completed"')).length;
  await rm(dir, { recursive: true, force: true });
  if (run.code !== 0) console.error(run.stderr.slice(-2000));
  return {
    tasks: count,
    lines: lines.length,
    completed,
    wallMs: run.wallMs,
    tasksPerSecond: count / (run.wallMs / 1000),
    maxRssMb: run.maxRssMb,
    cpuSeconds: run.cpuSeconds,
  };
}

type Run = Awaited<ReturnType<typeof batch>>;
const runs = new Map<string, Run[]>();
for (let round = 0; only !== 'reply' && round < Number(args.rounds); round++)
  for (const count of [1_000, 10_000])
    for (let b = 0; b < builds.length; b++) {
      const { label, dist } = builds[(b + round) % builds.length]!;
      const key = `${label}:${count}`;
      runs.set(key, [...(runs.get(key) ?? []), await batch(count, dist)]);
    }
await server.close();
const measured = only === 'reply' ? [] : builds;
const results = measured.map(({ label }) => {
  const mid = (count: number): Run => {
    const all = runs.get(`${label}:${count}`)!;
    const pick = (key: keyof Run) => median(all.map((r) => r[key]));
    return {
      tasks: count,
      lines: pick('lines'),
      completed: pick('completed'),
      wallMs: pick('wallMs'),
      tasksPerSecond: pick('tasksPerSecond'),
      maxRssMb: pick('maxRssMb'),
      cpuSeconds: pick('cpuSeconds'),
    };
  };
  const small = mid(1_000);
  const large = mid(10_000);
  return { build: label, small, large, rssRatio: large.maxRssMb / small.maxRssMb };
});
for (const { build, small, large, rssRatio } of results) {
  console.log(`\n${build}:`);
  console.table([small, large]);
  console.log(
    `throughput: ${large.tasksPerSecond.toFixed(0)} tasks/s at 10,000 (goal ≥ 200); peak RSS ${small.maxRssMb.toFixed(0)} MB at 1,000 vs ${large.maxRssMb.toFixed(0)} MB at 10,000 = ${rssRatio.toFixed(2)}× (goal ≤ 1.5×)`,
  );
}
const [first] = results;
const tasks =
  only === 'reply'
    ? {}
    : builds.length === 1 && first
      ? { small: first.small, large: first.large, rssRatio: first.rssRatio }
      : { results };
const reply = only === 'tasks' ? undefined : await hugeReplyMemory();
console.log(`written to ${await writeResult('batch', { ...tasks, ...(reply ? { hugeReply: reply } : {}) })}`);
