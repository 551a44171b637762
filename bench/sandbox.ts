// bench/sandbox: what the command sandbox costs per command, each backend against an unsandboxed
// spawn of the same `bash -c true`, measured side by side: the three are interleaved in every
// round, so a machine busy with something else slows all three alike. Two projects: a small one,
// and this repository (about 16,000 entries, so the per-command secret scan has real work: it
// re-lists only directories whose ctime changed). Also the time to prepare a sandbox (plan,
// placeholders, argument list) without running it, and the one-time probe.
// Goal: overhead <= 10 ms median per command for each backend.
// Run: npx tsx bench/sandbox.ts [--rounds N]
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCommand } from '../src/host/capabilities/exec.js';
import { prepareSandboxed, probeSandbox, type SandboxStatus } from '../src/host/capabilities/sandbox.js';
import { median, quantile, writeResult } from './support/stats.js';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 40;
const WARMUP = 3;

async function smallProject(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-sandbox-'));
  const dir = path.join(root, 'project');
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await writeFile(path.join(dir, 'src', 'index.ts'), 'export {};\n');
  await writeFile(path.join(dir, '.env'), 'TOKEN=x\n');
  return { dir, cleanup: () => rm(root, { recursive: true, force: true }) };
}

type Variant = { name: string; status: SandboxStatus | undefined };

/**
 * CPU time (user + system, ms) of this process's children reaped so far, from /proc/self/stat:
 * what a command cost the machine, whatever else the machine was doing meanwhile.
 */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // cutime and cstime are fields 16 and 17 of the whole line (14 and 15 after the name).
  return ((Number(fields[14]) + Number(fields[15])) * 1000) / 100;
}

async function measure(dir: string, variants: Variant[]) {
  const times: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v.name, []]));
  const cpu: Record<string, number> = Object.fromEntries(variants.map((v) => [v.name, 0]));
  const inputs = { home: os.homedir(), rules: {} };
  for (let i = 0; i < rounds + WARMUP; i++) {
    for (const v of variants) {
      const cpuBefore = childrenCpuMs();
      const started = performance.now();
      const r = await runCommand({
        command: 'true',
        cwd: dir,
        sandbox: v.status === undefined ? 'off' : 'auto',
        ...(v.status !== undefined ? { sandboxStatus: v.status, sandboxInputs: inputs } : {}),
      });
      if (r.exitCode !== 0) throw new Error(`${v.name}: exit ${r.exitCode}: ${r.stderr}`);
      if (i >= WARMUP) {
        times[v.name]?.push(performance.now() - started);
        cpu[v.name] = (cpu[v.name] ?? 0) + childrenCpuMs() - cpuBefore;
      }
    }
  }
  const plain = median(times.plain ?? []);
  return Object.fromEntries(
    variants.map((v) => {
      const t = times[v.name] ?? [];
      return [
        v.name,
        {
          medianMs: +median(t).toFixed(2),
          p90Ms: +quantile(t, 0.9).toFixed(2),
          overheadMedianMs: v.name === 'plain' ? 0 : +(median(t) - plain).toFixed(2),
          childCpuMsPerCommand: +((cpu[v.name] ?? 0) / rounds).toFixed(2),
        },
      ];
    }),
  );
}

async function prepareOnly(dir: string, status: SandboxStatus): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const prepared = await prepareSandboxed(
      status,
      {
        projectDir: dir,
        cwd: dir,
        home: os.homedir(),
        pathVar: process.env.PATH ?? '',
        extraRoots: [],
        allowRead: [],
        denyRead: [],
        protect: [],
        rules: {},
      },
      'true',
    );
    await prepared.cleanup();
    times.push(performance.now() - started);
  }
  return +median(times).toFixed(2);
}

const probeStarted = performance.now();
const bwrap = await probeSandbox();
const probeMs = performance.now() - probeStarted;
const unshare = await probeSandbox({ bwrapPath: '/nonexistent/cadre-bench/bwrap' });
const variants: Variant[] = [{ name: 'plain', status: undefined }];
if (bwrap.mode === 'bwrap') variants.push({ name: 'bwrap', status: bwrap });
if (unshare.mode === 'unshare') variants.push({ name: 'unshare', status: unshare });
console.log(
  `backends: ${
    variants
      .slice(1)
      .map((v) => v.name)
      .join(', ') || 'none'
  }; ${rounds} rounds, interleaved`,
);

const small = await smallProject();
const results: Record<string, unknown> = {
  rounds,
  probeMs: +probeMs.toFixed(1),
  uid: process.getuid?.(),
  loadAverage: os.loadavg().map((l) => +l.toFixed(1)),
};
try {
  results.smallProject = await measure(small.dir, variants);
  results.thisRepository = await measure(process.cwd(), variants);
  results.prepareOnlyMedianMs = Object.fromEntries(
    await Promise.all(
      variants
        .slice(1)
        .map(async (v) => [v.name, await prepareOnly(process.cwd(), v.status as SandboxStatus)]),
    ),
  );
} finally {
  await small.cleanup();
}
const goal = 10;
for (const where of ['smallProject', 'thisRepository'] as const) {
  const r = results[where] as Record<
    string,
    { medianMs: number; overheadMedianMs: number; childCpuMsPerCommand: number }
  >;
  for (const [name, m] of Object.entries(r))
    console.log(
      `${where.padEnd(15)} ${name.padEnd(8)} median ${m.medianMs.toFixed(1)} ms, child CPU ${m.childCpuMsPerCommand.toFixed(1)} ms` +
        (name === 'plain' ? '' : `, overhead ${m.overheadMedianMs.toFixed(1)} ms (goal <= ${goal})`),
    );
}
console.log(
  `prepare only (median): ${JSON.stringify(results.prepareOnlyMedianMs)}; probe once: ${results.probeMs} ms`,
);
results.loadAverageAfter = os.loadavg().map((l) => +l.toFixed(1));
console.log(
  `load average ${JSON.stringify(results.loadAverage)} -> ${JSON.stringify(results.loadAverageAfter)}`,
);
console.log(`wrote ${await writeResult('sandbox', results)}`);
