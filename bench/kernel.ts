// bench/kernel: the kernel's own costs, each measured side by side in one run.
//   1. capability round trip (worker -> host -> worker) vs a direct function call
//   2. kill latency after the deadline for a CPU-bound runaway
//   3. host event-loop delay p99 while 8 workers spin
//   4. Grep over a 20,000-file tree vs ripgrep (when `rg` is installed)
// Run: npm run build && npx tsx bench/kernel.ts [--only roundTrip,kill,loopDelay,grep]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MessageChannel, Worker } from 'node:worker_threads';
import { exposeGateway } from '../src/host/capabilities/gateway.js';
// The compiled library, as users import it (bench scripts run after npm run build).
import { createRuntime } from '../dist/index.js';
import { portEndpoint } from '../src/shared/endpoint.js';
import { ok } from '../src/shared/errors.js';
import type { Capabilities } from '../src/shared/capabilities.js';
import { lastMessage, startFakeAnthropic, textReply, toolUseReply } from '../test/support/fake-anthropic.js';
// Runs that spin on purpose run in the test-only workers (built from source here, never shipped).
import { buildFaultWorkers } from '../test/support/faults/build-fault-workers.js';
import { createFaultRuntime } from '../test/support/faults/fault-runtime.js';
import { median, quantile, writeResult } from './support/stats.js';

const handler: Capabilities['fs.stat'] = async (req) =>
  ok({ path: req.path, exists: false, type: 'missing', size: 0, mtimeMs: 0 });

async function roundTrip(n: number) {
  const direct: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await handler({ path: `file-${i}` });
    direct.push(performance.now() - t);
  }
  const channel = new MessageChannel();
  const gateway = exposeGateway(portEndpoint(channel.port1), { 'fs.stat': handler }, ['fs.stat']);
  const worker = new Worker(new URL('./support/roundtrip-worker.mjs', import.meta.url), {
    workerData: { port: channel.port2, n },
    transferList: [channel.port2],
  });
  const times = (await new Promise((resolve) => worker.once('message', resolve))) as number[];
  await worker.terminate();
  gateway.close();
  channel.port1.close();
  const rt = times.slice(Math.floor(n / 10)); // drop warm-up
  return {
    calls: n,
    directMedianUs: median(direct) * 1000,
    roundTripMedianUs: median(rt) * 1000,
    roundTripP99Us: quantile(rt, 0.99) * 1000,
    overheadMedianUs: (median(rt) - median(direct)) * 1000,
  };
}

async function project(): Promise<{ dir: string; home: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-'));
  const dir = path.join(root, 'p');
  const home = path.join(root, 'h');
  await mkdir(dir, { recursive: true });
  await mkdir(home, { recursive: true });
  return { dir, home, cleanup: () => rm(root, { recursive: true, force: true }) };
}

async function killLatency(runs: number) {
  const p = await project();
  const runtime = await createFaultRuntime({
    cwd: p.dir,
    home: p.home,
    env: {},
    concurrency: 4,
  });
  const over: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = await runtime.run({ subagent_type: 'general-purpose', prompt: 'fault:spin', timeout: 0.3 });
    if (out.status !== 'timeout') throw new Error(`expected timeout, got ${out.status}`);
    over.push(out.durationMs - 300);
  }
  await runtime.close();
  await p.cleanup();
  return { runs, timeoutMs: 300, killLatencyMedianMs: median(over), killLatencyMaxMs: Math.max(...over) };
}

async function loopDelayWhileSpinning(workers: number) {
  const p = await project();
  const runtime = await createFaultRuntime({
    cwd: p.dir,
    home: p.home,
    env: {},
    concurrency: workers,
  });
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const outs = await Promise.all(
    Array.from({ length: workers }, () =>
      runtime.run({ subagent_type: 'general-purpose', prompt: 'fault:spin', timeout: 2 }),
    ),
  );
  histogram.disable();
  await runtime.close();
  await p.cleanup();
  return {
    workers,
    statuses: [...new Set(outs.map((o) => o.status))],
    loopDelayP99Ms: histogram.percentile(99) / 1e6,
    loopDelayMaxMs: histogram.max / 1e6,
  };
}

async function grepVsRg(files: number) {
  const p = await project();
  for (let d = 0; d < files / 100; d++) {
    const sub = path.join(p.dir, `pkg${d}`, 'src');
    await mkdir(sub, { recursive: true });
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        writeFile(
          path.join(sub, `file${i}.ts`),
          `export function f${i}() {\n  return ${i};\n}\n${i % 50 === 0 ? '// needle here\n' : ''}`.repeat(5),
        ),
      ),
    );
  }
  const server = await startFakeAnthropic({
    responder: (req) => {
      const last = lastMessage(req.body);
      const hasResult =
        Array.isArray(last?.content) &&
        last.content.some((b) => (b as { type?: string }).type === 'tool_result');
      return hasResult
        ? textReply('done')
        : toolUseReply([
            {
              name: 'Grep',
              input: { pattern: 'needle', output_mode: 'files_with_matches', head_limit: 100000 },
            },
          ]);
    },
  });
  const runtime = await createRuntime({
    cwd: p.dir,
    home: p.home,
    env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
  });
  const grepMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    let ms = NaN;
    const handle = await runtime.task(
      { subagent_type: 'general-purpose', prompt: 'grep', timeout: 120 },
      {
        onEvent: (e) => {
          if (e.type === 'tool-result') ms = e.durationMs;
        },
      },
    );
    await handle.result;
    grepMs.push(ms);
  }
  await runtime.close();
  await server.close();
  const hasRg = spawnSync('rg', ['--version']).status === 0;
  const rgMs: number[] = [];
  if (hasRg) {
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      execFileSync('rg', ['-l', 'needle', p.dir], { stdio: 'ignore' });
      rgMs.push(performance.now() - t);
    }
  }
  await p.cleanup();
  return {
    files,
    grepMedianMs: median(grepMs),
    rgMedianMs: hasRg ? median(rgMs) : null,
    ratio: hasRg ? median(grepMs) / median(rgMs) : null,
  };
}

// `--only grep` (or a comma list of section names) runs just those sections.
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
const want = (name: string) => !only || only.has(name);
if (want('kill') || want('loopDelay')) await buildFaultWorkers();

const results = {
  roundTrip: want('roundTrip') ? await roundTrip(5000) : undefined,
  kill: want('kill') ? await killLatency(20) : undefined,
  loopDelay: want('loopDelay') ? await loopDelayWhileSpinning(8) : undefined,
  grep: want('grep') ? await grepVsRg(20_000) : undefined,
};
console.log(JSON.stringify(results, null, 2));
const lines: string[] = [];
if (results.roundTrip)
  lines.push(
    `capability round trip: ${results.roundTrip.roundTripMedianUs.toFixed(1)} µs median vs direct ${results.roundTrip.directMedianUs.toFixed(1)} µs (overhead ${results.roundTrip.overheadMedianUs.toFixed(1)} µs; goal ≤ 100)`,
  );
if (results.kill)
  lines.push(
    `kill latency after deadline: ${results.kill.killLatencyMedianMs.toFixed(1)} ms median (goal ≤ 50)`,
  );
if (results.loopDelay)
  lines.push(
    `host event-loop delay p99 with 8 spinning workers: ${results.loopDelay.loopDelayP99Ms.toFixed(1)} ms (goal ≤ 20)`,
  );
if (results.grep)
  lines.push(
    `Grep over ${results.grep.files} files: ${results.grep.grepMedianMs.toFixed(0)} ms${results.grep.ratio ? ` vs rg ${results.grep.rgMedianMs?.toFixed(0)} ms = ${results.grep.ratio.toFixed(2)}× (goal ≤ 3×)` : ' (rg not installed)'}`,
  );
console.log(lines.join('\n'));
console.log(`written to ${await writeResult(only ? `kernel-${[...only].join('-')}` : 'kernel', results)}`);
