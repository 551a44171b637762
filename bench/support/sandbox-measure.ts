// One user's measurement for bench/sandbox: each backend against an unsandboxed spawn of the same
// `bash -c true`, interleaved round by round, in each project given; also the floor against a
// bare spawn: bwrap's namespaces alone (no mounts, no launcher), and the launcher alone (setpriv's
// parent-death signal and the shell that checks the parent). Prints JSON on stdout.
// The build measured is this repository's `src/`, or with `--build <dir>` the `src/` of a copy of
// it (to compare a change with the build before it).
// Usage: node --import tsx bench/support/sandbox-measure.ts <rounds> <home> [--build <dir>] <name>=<project>...
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { runCommand as RunCommand } from '../../src/host/capabilities/exec.js';
import type * as Sandbox from '../../src/host/capabilities/sandbox.js';
import type { SandboxStatus } from '../../src/host/capabilities/sandbox.js';
import { median, quantile } from './stats.js';

const run = promisify(execFile);
const WARMUP = 3;
/** Untimed pause before each command (CADRE_BENCH_GAP_MS): a model's commands come seconds apart. */
const GAP_MS = Number(process.env.CADRE_BENCH_GAP_MS) || 0;
const [roundsArg, homeArg, ...rest] = process.argv.slice(2);
const rounds = Number(roundsArg) || 40;
const home = homeArg ?? '/nonexistent';
const buildAt = rest[0] === '--build' ? rest[1] : undefined;
const projects = buildAt === undefined ? rest : rest.slice(2);
const srcRoot = buildAt === undefined ? path.resolve(import.meta.dirname, '..', '..') : path.resolve(buildAt);
const module = (p: string) => pathToFileURL(path.join(srcRoot, 'src', 'host', 'capabilities', p)).href;
const { runCommand } = (await import(module('exec.ts'))) as { runCommand: typeof RunCommand };
const { prepareSandboxed, probeSandbox } = (await import(module('sandbox.ts'))) as typeof Sandbox;

/** CPU time (ms) of this process's reaped children, from /proc/self/stat (cutime + cstime). */
function childrenCpuMs(): number {
  // cutime and cstime are fields 16 and 17 of the whole line (14 and 15 after the name).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[14]) + Number(fields[15])) * 1000) / 100;
}

interface Variant {
  name: string;
  once: () => Promise<void>;
}

interface Figures {
  medianMs: number;
  p90Ms: number;
  overheadMedianMs: number;
  childCpuMsPerCommand: number;
  /**
   * CPU per command, this process's (planning, spawning; to the microsecond) and its children's
   * (to the clock tick, summed over the rounds): unlike the time, barely moved by other load.
   */
  cpuMsPerCommand: number;
}

/** Runs the variants interleaved, round by round; the first variant is the baseline. */
async function interleaved(variants: readonly Variant[]): Promise<Record<string, Figures>> {
  const times = variants.map(() => [] as number[]);
  const cpu = variants.map(() => 0);
  const ownCpu = variants.map(() => 0);
  for (let i = 0; i < rounds + WARMUP; i++) {
    for (const [k, v] of variants.entries()) {
      if (GAP_MS > 0) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      const cpuBefore = childrenCpuMs();
      const ownBefore = process.cpuUsage();
      const started = performance.now();
      await v.once();
      if (i < WARMUP) continue;
      times[k]?.push(performance.now() - started);
      const own = process.cpuUsage(ownBefore);
      cpu[k] = (cpu[k] ?? 0) + childrenCpuMs() - cpuBefore;
      ownCpu[k] = (ownCpu[k] ?? 0) + (own.user + own.system) / 1000;
    }
  }
  const base = median(times[0] ?? []);
  return Object.fromEntries(
    variants.map((v, k) => {
      const t = times[k] ?? [];
      const figures: Figures = {
        medianMs: +median(t).toFixed(2),
        p90Ms: +quantile(t, 0.9).toFixed(2),
        overheadMedianMs: +(median(t) - base).toFixed(2),
        childCpuMsPerCommand: +((cpu[k] ?? 0) / rounds).toFixed(2),
        cpuMsPerCommand: +(((cpu[k] ?? 0) + (ownCpu[k] ?? 0)) / rounds).toFixed(2),
      };
      return [v.name, figures];
    }),
  );
}

/** A `true` run by cadre's exec path, sandboxed by `status` or not at all. */
function viaExec(name: string, dir: string, status: SandboxStatus | undefined): Variant {
  return {
    name,
    once: async () => {
      const r = await runCommand({
        command: 'true',
        cwd: dir,
        sandbox: status === undefined ? 'off' : 'auto',
        ...(status !== undefined ? { sandboxStatus: status, sandboxInputs: { home, rules: {} } } : {}),
      });
      if (r.exitCode !== 0) throw new Error(`${name}: exit ${r.exitCode}: ${r.stderr}`);
    },
  };
}

/** A program spawned directly, without cadre's exec path. */
function direct(name: string, file: string, args: string[]): Variant {
  return { name, once: async () => void (await run(file, args)) };
}

/** Median time to prepare (plan, placeholders, arguments) and clean up a sandbox, without running it. */
async function prepareOnly(dir: string, status: SandboxStatus): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const prepared = await prepareSandboxed(
      status,
      {
        projectDir: dir,
        cwd: dir,
        home,
        pathVar: process.env.PATH ?? '',
        extraRoots: [],
        allowRead: [],
        denyRead: [],
        protect: [],
        rules: {},
      },
      'true',
    );
    // The plan is made by `feed` (a build before it made the plan in prepareSandboxed itself).
    await (prepared as { feed?: () => Promise<unknown> }).feed?.();
    await prepared.cleanup();
    times.push(performance.now() - started);
  }
  return +median(times).toFixed(2);
}

const probeStarted = performance.now();
const bwrap = await probeSandbox();
const probeMs = +(performance.now() - probeStarted).toFixed(1);
const unshare = await probeSandbox({ bwrapPath: '/nonexistent/cadre-bench/bwrap' });
const backends = [
  ...(bwrap.mode === 'bwrap' ? [{ name: 'bwrap', status: bwrap }] : []),
  ...(unshare.mode === 'unshare' ? [{ name: 'unshare', status: unshare }] : []),
];
const result: Record<string, unknown> = {
  uid: process.getuid?.(),
  probeMs,
  processCap: Object.fromEntries(backends.map((b) => [b.name, b.status.processCap.kind])),
};
for (const named of projects) {
  const at = named.indexOf('=');
  const dir = named.slice(at + 1);
  result[at > 0 ? named.slice(0, at) : path.basename(dir)] = {
    perCommand: await interleaved([
      viaExec('plain', dir, undefined),
      ...backends.map((b) => viaExec(b.name, dir, b.status)),
    ]),
    prepareOnlyMedianMs: Object.fromEntries(
      await Promise.all(backends.map(async (b) => [b.name, await prepareOnly(dir, b.status)])),
    ),
  };
}
if (bwrap.bwrapPath !== undefined && bwrap.bash !== undefined) {
  const namespaces = ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net'];
  const bare = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--new-session'];
  result.floor = await interleaved([
    direct('bashSpawn', bwrap.bash, ['-c', 'true']),
    direct('bwrapNamespacesOnly', bwrap.bwrapPath, [...namespaces, ...bare, bwrap.bash, '-c', 'true']),
    ...(bwrap.setpriv !== undefined && bwrap.sh !== undefined
      ? [
          direct('launcherOnly', bwrap.setpriv, [
            '--pdeathsig',
            'KILL',
            bwrap.sh,
            '-c',
            'exec "$@"',
            'cadre-launch',
            bwrap.bash,
            '-c',
            'true',
          ]),
        ]
      : []),
  ]);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
