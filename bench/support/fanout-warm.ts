// bench/fanout on a warm pool, in this process: the library as `cadre batch` and long-lived hosts use
// it, with its threads already started. Wall time ÷ the ideal critical path at N = 1, 8, 32 (five
// runs each, interleaved), the launch overhead per subagent, and the runtime's own CPU per
// subagent (against the model server in a process of its own). Several builds (copies of dist/)
// each get a runtime of their own, and take turns run by run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeAnthropic, systemText } from '../../test/support/fake-anthropic.js';
// Types only: each build's library is imported from its own dist/ copy.
import type * as DistLibrary from '../../dist/index.js';
import { FANOUT_AGENTS, fanoutResponder } from './fanout-script.js';
import { median } from './stats.js';

/** The compiled library's module, as users import it. */
type Library = typeof DistLibrary;
type Runtime = Awaited<ReturnType<Library['createRuntime']>>;

/** The warm-pool figures of one build. */
export interface WarmResult {
  build: string;
  rows: Array<{
    n: number;
    status: string;
    runMs: number;
    idealMs: number;
    ratio: number;
    ratioMin: number;
    ratioMax: number;
    launchOverheadMedianMs: number;
  }>;
  singleLaunchMs: number;
  warmCpuPerSubagent: number;
}

const SIZES = [1, 8, 32];
const REPEATS = 5;

/** Creates a runtime of each build's library, against `url`. */
async function runtimes(
  builds: ReadonlyArray<{ dist: string }>,
  root: string,
  url: string,
): Promise<Runtime[]> {
  const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url };
  return Promise.all(
    builds.map(async ({ dist }) => {
      const lib = (await import(pathToFileURL(path.resolve(dist, 'index.js')).href)) as Library;
      return lib.createRuntime({ cwd: root, home: root, env, agents: FANOUT_AGENTS, concurrency: 32 });
    }),
  );
}

/** Runs the warm-pool part in `root` (a project whose config allows 32 subagents at once). */
export async function runWarmFanout(
  root: string,
  callMs: number,
  builds: ReadonlyArray<{ label: string; dist: string }>,
): Promise<WarmResult[]> {
  const server = await startFakeAnthropic({ latencyMs: callMs, responder: fanoutResponder });
  const idealMs = 5 * callMs;
  const all = await runtimes(builds, root, server.url);
  async function fanout(runtime: Runtime, size: number) {
    server.clearLog();
    const out = await runtime.run({ subagent_type: 'lead', prompt: `go ${size}` });
    const reqs = server.requests;
    const leadFirst = reqs.find((r) => systemText(r.body).startsWith('[lead]'));
    const subFirsts = reqs.filter(
      (r) => systemText(r.body).startsWith('[sub]') && r.body.messages.length === 1,
    );
    // The lead's first reply ends when its Task calls are known; each child's first request follows.
    const launch = subFirsts.map((r) => r.startedAt - (leadFirst?.endedAt ?? r.startedAt));
    const ok = out.status === 'completed' && subFirsts.length === size;
    return { n: size, ok, runMs: out.durationMs, ratio: out.durationMs / idealMs, launch: median(launch) };
  }
  try {
    for (const runtime of all) await fanout(runtime, 32); // warm-up: each pool starts its threads
    // Each size five times, interleaved, builds taking turns: one run on a shared machine is noise.
    const runs = all.map(() => SIZES.map(() => [] as Awaited<ReturnType<typeof fanout>>[]));
    for (let r = 0; r < REPEATS; r++)
      for (const [i, size] of SIZES.entries())
        for (let k = 0; k < all.length; k++) {
          const b = (k + r) % all.length;
          runs[b]![i]!.push(await fanout(all[b]!, size));
        }
    // One child at a time, 20 times each: the runtime's own launch cost without CPU contention.
    const single = all.map(() => [] as number[]);
    for (let i = 0; i < 20; i++)
      for (const [b, runtime] of all.entries()) single[b]!.push((await fanout(runtime, 1)).launch);
    const cpu = await warmCpu(builds, root, callMs);
    return builds.map((build, b) => ({
      build: build.label,
      rows: runs[b]!.map((sized) => summarize(sized, idealMs)),
      singleLaunchMs: median(single[b]!),
      warmCpuPerSubagent: cpu[b]!,
    }));
  } finally {
    await Promise.all(all.map((runtime) => runtime.close()));
    await server.close();
  }
}

function summarize(
  sized: Array<{ n: number; ok: boolean; runMs: number; ratio: number; launch: number }>,
  idealMs: number,
): WarmResult['rows'][number] {
  const byRatio = [...sized].sort((a, b) => a.ratio - b.ratio);
  const mid = byRatio[Math.floor(byRatio.length / 2)]!;
  return {
    n: mid.n,
    status: sized.every((run) => run.ok) ? 'completed' : 'failed',
    runMs: mid.runMs,
    idealMs,
    ratio: mid.ratio,
    ratioMin: byRatio[0]!.ratio,
    ratioMax: byRatio.at(-1)!.ratio,
    launchOverheadMedianMs: median(sized.map((run) => run.launch)),
  };
}

/**
 * The runtime's own CPU per subagent on a warm pool, per build: the N = 32 fan-out against the
 * server in a process of its own, so that process.cpuUsage() counts the host and its threads only.
 */
async function warmCpu(
  builds: ReadonlyArray<{ dist: string }>,
  root: string,
  callMs: number,
): Promise<number[]> {
  const serverProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join('bench', 'support', 'fanout-server.ts'), String(callMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [firstLine] = (await once(serverProcess.stdout, 'data')) as [Buffer];
  const all = await runtimes(builds, root, firstLine.toString().trim().split('\n')[0]!);
  const perSubagent = all.map(() => [] as number[]);
  try {
    for (const runtime of all) await runtime.run({ subagent_type: 'lead', prompt: 'go 32' });
    for (let i = 0; i < 5; i++)
      for (const [b, runtime] of all.entries()) {
        const before = process.cpuUsage();
        const out = await runtime.run({ subagent_type: 'lead', prompt: 'go 32' });
        const used = process.cpuUsage(before);
        if (out.status === 'completed') perSubagent[b]!.push((used.user + used.system) / 1e6 / 32);
      }
  } finally {
    await Promise.all(all.map((runtime) => runtime.close()));
    serverProcess.stdin.end();
    if (serverProcess.exitCode === null) await once(serverProcess, 'exit');
  }
  return perSubagent.map((values) => median(values));
}
