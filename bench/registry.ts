// bench/registry: loading 1,000 agent files (goal: < 150 ms median), next to the bare cost of
// reading the same files, so the ratio shows what parsing and validation add on top of the I/O.
// Run: npx tsx bench/registry.ts
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadRegistry } from '../src/host/registry/load-registry.js';
import { median, quantile, writeResult } from './support/stats.js';

const FILES = 1000;
const RUNS = 20;
const GOAL_MS = 150;

const TOOLS = [
  'Read, Glob, Grep, LS',
  'Read, Write, Edit, Bash',
  'Bash',
  'Read, Grep, Task(explore, plan)',
  'mcp__github__*, Read',
];

function agentFile(i: number): string {
  const name = `agent-${String(i).padStart(4, '0')}`;
  const prompt = Array.from(
    { length: 30 },
    (_, line) =>
      `Line ${line} of the instructions for ${name}: read the code, report findings with file:line.`,
  ).join('\n');
  return [
    '---',
    `name: ${name}`,
    `description: Benchmark agent ${i}. Use it when task ${i} comes up; it reviews, plans and reports.`,
    `tools: ${TOOLS[i % TOOLS.length]}`,
    `model: ${i % 2 === 0 ? 'haiku' : 'sonnet'}`,
    'timeout: 300',
    'maxTurns: 20',
    '---',
    prompt,
    '',
  ].join('\n');
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-registry-'));
  const home = path.join(root, 'home');
  const agentsDir = path.join(root, 'project', '.cadre', 'agents');
  try {
    await mkdir(agentsDir, { recursive: true });
    await mkdir(home);
    await Promise.all(
      Array.from({ length: FILES }, (_, i) =>
        writeFile(path.join(agentsDir, `agent-${String(i).padStart(4, '0')}.md`), agentFile(i)),
      ),
    );
    const options = { cwd: path.join(root, 'project'), home };

    const check = await loadRegistry(options);
    if (check.errors.length > 0 || check.agents.length !== FILES + 5) {
      throw new Error(
        `unexpected load result: ${check.agents.length} agents, ${check.errors.length} errors (${check.errors[0]?.message ?? ''})`,
      );
    }
    const readOnly = async () => {
      const names = await readdir(agentsDir);
      await Promise.all(names.map((n) => readFile(path.join(agentsDir, n), 'utf8')));
    };
    // Warm both paths, then time each series on its own so one's garbage is not collected in
    // the other's time.
    await readOnly();
    const load: number[] = [];
    const read: number[] = [];
    for (let i = 0; i < RUNS; i++) load.push(await time(() => loadRegistry(options)));
    for (let i = 0; i < RUNS; i++) read.push(await time(readOnly));
    const result = {
      files: FILES,
      runs: RUNS,
      loadMedianMs: round(median(load)),
      loadP90Ms: round(quantile(load, 0.9)),
      loadMinMs: round(Math.min(...load)),
      readOnlyMedianMs: round(median(read)),
      ratioToReadOnly: round(median(load) / median(read)),
      goalMs: GOAL_MS,
      withinGoal: median(load) < GOAL_MS,
      // Context for the figure: other work on the machine slows every run alike.
      cpus: os.cpus().length,
      loadAverage1m: round(os.loadavg()[0] ?? 0),
    };
    const file = await writeResult('registry', result);
    console.log(
      `registry: ${FILES} agent files, ${RUNS} runs (${result.cpus} CPUs, load average ${result.loadAverage1m})`,
    );
    console.log(
      `  loadRegistry  median ${result.loadMedianMs} ms  (p90 ${result.loadP90Ms} ms, min ${result.loadMinMs} ms)  goal < ${GOAL_MS} ms: ${result.withinGoal ? 'met' : 'MISSED'}`,
    );
    console.log(
      `  read only     median ${result.readOnlyMedianMs} ms  -> parsing and validation cost ${result.ratioToReadOnly}x the bare reads`,
    );
    console.log(`  written to ${path.relative(process.cwd(), file)}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

await main();
