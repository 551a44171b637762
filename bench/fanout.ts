// bench/fanout: a lead fans out to N subagents on the fake server (300 ms per model call, each
// subagent making 2 tool calls). Reports wall time ÷ the ideal critical path for N = 1, 8, 32, the
// runtime's launch overhead per subagent, process start to first model request, CPU per subagent
// (on a warm pool, with the server in another process; and in a fresh CLI process, thread start-up
// included), peak RSS at N = 8 and per extra agent.
// Run: npm run build && npx tsx bench/fanout.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFakeAnthropic, systemText } from '../test/support/fake-anthropic.js';
// The compiled library, as users import it (bench scripts run after npm run build).
import { createRuntime } from '../dist/index.js';
import { runCli } from './support/cli.js';
import { FANOUT_AGENTS, fanoutResponder } from './support/fanout-script.js';
import { median, writeResult } from './support/stats.js';

const CALL_MS = 300;
const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-fanout-'));
await mkdir(path.join(root, 'src'), { recursive: true });
for (let i = 0; i < 20; i++)
  await writeFile(path.join(root, 'src', `m${i}.ts`), `export const v${i} = ${i};\n`);

const server = await startFakeAnthropic({ latencyMs: CALL_MS, responder: fanoutResponder });
const agents = FANOUT_AGENTS;
const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
const IDEAL_MS = 2 * CALL_MS + 3 * CALL_MS;

// Part A, in one process on a warm pool: wall time vs the ideal critical path, launch overhead.
const root2 = root;
const runtime = await createRuntime({ cwd: root2, home: root2, env, agents, concurrency: 32 });
async function fanout(size: number) {
  server.clearLog();
  const out = await runtime.run({ subagent_type: 'lead', prompt: `go ${size}` });
  const reqs = server.requests;
  const leadFirst = reqs.find((r) => systemText(r.body).startsWith('[lead]'));
  const subFirsts = reqs.filter(
    (r) => systemText(r.body).startsWith('[sub]') && r.body.messages.length === 1,
  );
  // The lead's first reply ends when its Task calls are known; each child's first request follows.
  const launch = subFirsts.map((r) => r.startedAt - (leadFirst?.endedAt ?? r.startedAt));
  return {
    n: size,
    status: out.status,
    runMs: out.durationMs,
    idealMs: IDEAL_MS,
    ratio: out.durationMs / IDEAL_MS,
    launchOverheadMedianMs: median(launch),
  };
}
await fanout(32); // warm-up: the pool starts its threads
// Each size five times, interleaved, reporting the median run: one run on a shared machine is noise.
const REPEATS = 5;
const runs: Awaited<ReturnType<typeof fanout>>[][] = [[], [], []];
for (let r = 0; r < REPEATS; r++)
  for (const [i, size] of [1, 8, 32].entries()) runs[i]!.push(await fanout(size));
const rows = runs.map((all) => {
  const byRatio = [...all].sort((a, b) => a.ratio - b.ratio);
  const mid = byRatio[Math.floor(byRatio.length / 2)]!;
  return {
    ...mid,
    status: all.every((run) => run.status === 'completed') ? 'completed' : 'failed',
    ratioMin: byRatio[0]!.ratio,
    ratioMax: byRatio.at(-1)!.ratio,
    launchOverheadMedianMs: median(all.map((run) => run.launchOverheadMedianMs)),
  };
});
// One child at a time, 20 times: the runtime's own launch cost without CPU contention.
const single: number[] = [];
for (let i = 0; i < 20; i++) single.push((await fanout(1)).launchOverheadMedianMs);
const singleLaunchMs = median(single);
await runtime.close();

// Part A2, the runtime's own CPU per subagent on a warm pool: the same fan-out against the server
// in a process of its own, so that process.cpuUsage() counts the host and its worker threads only.
const serverProcess = spawn(
  process.execPath,
  ['--import', 'tsx', 'bench/support/fanout-server.ts', String(CALL_MS)],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const [firstLine] = (await once(serverProcess.stdout, 'data')) as [Buffer];
const remoteUrl = firstLine.toString().trim().split('\n')[0]!;
const warm = await createRuntime({
  cwd: root2,
  home: root2,
  env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: remoteUrl },
  agents,
  concurrency: 32,
});
await warm.run({ subagent_type: 'lead', prompt: 'go 32' });
const warmCpu: number[] = [];
for (let i = 0; i < 5; i++) {
  const before = process.cpuUsage();
  const out = await warm.run({ subagent_type: 'lead', prompt: 'go 32' });
  const used = process.cpuUsage(before);
  if (out.status === 'completed') warmCpu.push((used.user + used.system) / 1e6 / 32);
}
await warm.close();
serverProcess.stdin.end();
await once(serverProcess, 'exit');
const warmCpuPerSubagent = median(warmCpu);

// Part B, the CLI as a fresh process: start to first model request, CPU and peak RSS (the median
// of three processes per size, interleaved).
const cliRuns: Record<number, Record<string, number>[]> = { 1: [], 8: [], 32: [] };
for (let round = 0; round < 3; round++)
  for (const size of [1, 8, 32]) {
    server.clearLog();
    const spawnAt = performance.now();
    const run = await runCli(
      ['run', 'lead', `go ${size}`, '--json', '--agents', agents, '--cwd', root],
      env,
      root,
    );
    const first = server.requests.find((r) => systemText(r.body).startsWith('[lead]'));
    cliRuns[size]!.push({
      code: run.code ?? -1,
      processStartToFirstRequestMs: (first?.startedAt ?? NaN) - spawnAt,
      cpuSecondsPerSubagent: run.cpuSeconds / size,
      maxRssMb: run.maxRssMb,
    });
  }
const cli = [1, 8, 32].map((size) => {
  const all = cliRuns[size]!;
  const mid = (key: string) => median(all.map((run) => run[key]!));
  return {
    n: size,
    code: all.find((run) => run.code !== 0)?.code ?? 0,
    processStartToFirstRequestMs: mid('processStartToFirstRequestMs'),
    cpuSecondsPerSubagent: mid('cpuSecondsPerSubagent'),
    maxRssMb: mid('maxRssMb'),
  };
});
await server.close();
await rm(root, { recursive: true, force: true });
const at = (k: number) => rows.find((r) => r.n === k)!;
const cliAt = (k: number) => cli.find((r) => r.n === k)!;
const perExtraMb = (cliAt(32).maxRssMb! - cliAt(8).maxRssMb!) / 24;
console.table(rows);
console.table(cli);
console.log(
  [
    `wall ÷ ideal critical path (warm pool, median of ${REPEATS}): N=1 ${at(1).ratio.toFixed(3)}, N=8 ${at(8).ratio.toFixed(3)} (goal ≤ 1.10), N=32 ${at(32).ratio.toFixed(3)} (goal ≤ 1.25; range ${at(32).ratioMin.toFixed(3)}-${at(32).ratioMax.toFixed(3)})`,
    `launch overhead per subagent (warm pool): ${singleLaunchMs.toFixed(1)} ms median one at a time (goal ≤ 5); ${at(8).launchOverheadMedianMs.toFixed(1)} ms when 8 start at once, ${at(32).launchOverheadMedianMs.toFixed(1)} ms when 32 do (2 cores)`,
    `process start to first model request: ${cliAt(1).processStartToFirstRequestMs!.toFixed(0)} ms (goal ≤ 250)`,
    `CPU per subagent (warm pool, the runtime's own): ${warmCpuPerSubagent.toFixed(3)} s at N=32 (goal ≤ 0.03); in a fresh CLI process, starting its threads included: ${cliAt(32).cpuSecondsPerSubagent!.toFixed(3)} s`,
    `peak RSS (fresh CLI process): ${cliAt(8).maxRssMb!.toFixed(0)} MB at N=8 (goal ≤ 220), ${perExtraMb.toFixed(1)} MB per extra agent (goal ≤ 15)`,
  ].join('\n'),
);
console.log(
  `written to ${await writeResult('fanout', { rows, singleLaunchMs, warmCpuPerSubagent, cli, perExtraMb })}`,
);
