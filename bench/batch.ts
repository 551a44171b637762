// bench/batch: `cadre batch` over 1,000 and 10,000 tasks on a zero-latency fake server, side by
// side: throughput (tasks/s) and peak RSS, and the RSS ratio 10,000 : 1,000. Then the memory of a
// run whose model streams a 100 MB reply (bench/support/huge-reply.ts).
// Run: npm run build && npx tsx bench/batch.ts [--only tasks|reply]
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFakeAnthropic, textReply } from '../test/support/fake-anthropic.js';
import { runCli } from './support/cli.js';
import { hugeReplyMemory } from './support/huge-reply.js';
import { writeResult } from './support/stats.js';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const server = await startFakeAnthropic({ latencyMs: 0, logLimit: 100, responder: () => textReply('ok') });
const agents = JSON.stringify({ echo: { description: 'echo', prompt: 'Answer briefly.', tools: ['Read'] } });
const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };

async function batch(count: number) {
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

let tasks: Record<string, unknown> = {};
if (only !== 'reply') {
  const small = await batch(1_000);
  const large = await batch(10_000);
  const ratio = large.maxRssMb / small.maxRssMb;
  console.table([small, large]);
  console.log(
    `throughput: ${large.tasksPerSecond.toFixed(0)} tasks/s at 10,000 (goal ≥ 200); peak RSS ${small.maxRssMb.toFixed(0)} MB at 1,000 vs ${large.maxRssMb.toFixed(0)} MB at 10,000 = ${ratio.toFixed(2)}× (goal ≤ 1.5×)`,
  );
  tasks = { small, large, rssRatio: ratio };
}
await server.close();
const reply = only === 'tasks' ? undefined : await hugeReplyMemory();
console.log(`written to ${await writeResult('batch', { ...tasks, ...(reply ? { hugeReply: reply } : {}) })}`);
