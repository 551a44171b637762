// bench/fanout on a warm pool, in this process: the library as `cadre batch` and long-lived hosts use
// it, with its threads already started. Wall time ÷ the ideal critical path at N = 1, 8, 32 (five
// runs each, interleaved), the launch overhead per subagent, and the runtime's own CPU per
// subagent (against the model server in a process of its own).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { startFakeAnthropic, systemText } from '../../test/support/fake-anthropic.js';
// The compiled library, as users import it (bench scripts run after npm run build).
import { createRuntime } from '../../dist/index.js';
import { FANOUT_AGENTS, fanoutResponder } from './fanout-script.js';
import { median } from './stats.js';

/** The warm-pool figures. */
export interface WarmResult {
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

/** Runs the warm-pool part in `root` (a project whose config allows 32 subagents at once). */
export async function runWarmFanout(root: string, callMs: number): Promise<WarmResult> {
  const server = await startFakeAnthropic({ latencyMs: callMs, responder: fanoutResponder });
  const idealMs = 5 * callMs;
  const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const runtime = await createRuntime({ cwd: root, home: root, env, agents: FANOUT_AGENTS, concurrency: 32 });
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
    const ok = out.status === 'completed' && subFirsts.length === size;
    return { n: size, ok, runMs: out.durationMs, ratio: out.durationMs / idealMs, launch: median(launch) };
  }
  try {
    await fanout(32); // warm-up: the pool starts its threads
    // Each size five times, interleaved, reporting the median run: one run on a shared machine is noise.
    const sizes = [1, 8, 32];
    const runs = sizes.map(() => [] as Awaited<ReturnType<typeof fanout>>[]);
    for (let r = 0; r < 5; r++) for (const [i, size] of sizes.entries()) runs[i]!.push(await fanout(size));
    const rows = runs.map((all) => {
      const byRatio = [...all].sort((a, b) => a.ratio - b.ratio);
      const mid = byRatio[Math.floor(byRatio.length / 2)]!;
      return {
        n: mid.n,
        status: all.every((run) => run.ok) ? 'completed' : 'failed',
        runMs: mid.runMs,
        idealMs,
        ratio: mid.ratio,
        ratioMin: byRatio[0]!.ratio,
        ratioMax: byRatio.at(-1)!.ratio,
        launchOverheadMedianMs: median(all.map((run) => run.launch)),
      };
    });
    // One child at a time, 20 times: the runtime's own launch cost without CPU contention.
    const single: number[] = [];
    for (let i = 0; i < 20; i++) single.push((await fanout(1)).launch);
    return { rows, singleLaunchMs: median(single), warmCpuPerSubagent: await warmCpu(root, callMs) };
  } finally {
    await runtime.close();
    await server.close();
  }
}

/**
 * The runtime's own CPU per subagent on a warm pool: the N = 32 fan-out against the server in a
 * process of its own, so that process.cpuUsage() counts the host and its worker threads only.
 */
async function warmCpu(root: string, callMs: number): Promise<number> {
  const serverProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join('bench', 'support', 'fanout-server.ts'), String(callMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [firstLine] = (await once(serverProcess.stdout, 'data')) as [Buffer];
  const remoteUrl = firstLine.toString().trim().split('\n')[0]!;
  const warm = await createRuntime({
    cwd: root,
    home: root,
    env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: remoteUrl },
    agents: FANOUT_AGENTS,
    concurrency: 32,
  });
  const perSubagent: number[] = [];
  try {
    await warm.run({ subagent_type: 'lead', prompt: 'go 32' });
    for (let i = 0; i < 5; i++) {
      const before = process.cpuUsage();
      const out = await warm.run({ subagent_type: 'lead', prompt: 'go 32' });
      const used = process.cpuUsage(before);
      if (out.status === 'completed') perSubagent.push((used.user + used.system) / 1e6 / 32);
    }
  } finally {
    await warm.close();
    serverProcess.stdin.end();
    if (serverProcess.exitCode === null) await once(serverProcess, 'exit');
  }
  return median(perSubagent);
}
