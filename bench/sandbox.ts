// bench/sandbox: what the command sandbox costs per command, each backend against an unsandboxed
// spawn of the same `bash -c true`, measured side by side: the variants are interleaved in every
// round, so a machine busy with something else slows them alike. Measured as the user running the
// bench and, when that is root, again as an unprivileged user (uid 65534, under setpriv), since
// root and other users get different process caps and mounts. Projects: a small one, and (for
// the running user) this repository (about 16,000 entries, so the per-command secret scan has
// real work). Also the time to prepare a sandbox without running it, the one-time probe, and the
// floor: bwrap's namespaces alone against a bare spawn.
// Goal: overhead <= 10 ms median per command for each backend.
// To compare builds: `--build label=dir` (repeatable; `dir` a copy of this repository with its
// `src/` and `node_modules`, readable by uid 65534) and `--reps N`: each repetition runs every
// build's measurement in its own process and its own small project, the builds' order alternating
// between repetitions; the summary gives each build's median over the repetitions.
// `--gap-ms N` pauses N ms (untimed) before each command, as a model's commands arrive apart: what
// the kernel does lazily between commands (an RCU grace period) is then paid again by each.
// Run: npx tsx bench/sandbox.ts [--rounds N] [--reps N] [--gap-ms N] [--build label=dir]...
import { execFile } from 'node:child_process';
import { chown, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { median, writeResult } from './support/stats.js';

const run = promisify(execFile);
const flag = (name: string) => process.argv[process.argv.indexOf(name) + 1];
const rounds = Number(flag('--rounds')) || 40;
const reps = Number(flag('--reps')) || 1;
const gapMs = process.argv.includes('--gap-ms') ? Number(flag('--gap-ms')) || 0 : 0;
const NOBODY = 65534;
const GOAL_MS = 10;

/** The builds measured: `--build label=dir`, or this repository alone (label ""). */
const builds: { label: string; dir: string | undefined }[] = process.argv.flatMap((a, i) => {
  if (a !== '--build') return [];
  const spec = process.argv[i + 1] ?? '';
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new Error(`--build wants label=dir, got "${spec}"`);
  return [{ label: spec.slice(0, eq), dir: path.resolve(spec.slice(eq + 1)) }];
});
if (builds.length === 0) builds.push({ label: '', dir: undefined });

/** A small project (with a `.env` to hide) and a home, owned by `uid`. */
async function smallProject(
  root: string,
  uid: number,
  label = '',
): Promise<{ project: string; home: string }> {
  const base = path.join(root, `uid-${uid}${label === '' ? '' : `-${label}`}`);
  const project = path.join(base, 'smallProject');
  const home = path.join(base, 'home');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await mkdir(home);
  await writeFile(path.join(project, 'src', 'index.ts'), 'export {};\n');
  await writeFile(path.join(project, '.env'), 'TOKEN=x\n');
  for (const p of [base, project, path.join(project, 'src'), path.join(project, 'src', 'index.ts')])
    await chown(p, uid, uid);
  await chown(path.join(project, '.env'), uid, uid);
  await chown(home, uid, uid);
  return { project, home };
}

/** Runs the measurement script as `uid` (dropping privileges with setpriv when it differs). */
async function measureAs(
  uid: number,
  home: string,
  projects: string[],
  build: string | undefined,
): Promise<unknown> {
  const script = ['--import', 'tsx', path.join('bench', 'support', 'sandbox-measure.ts')];
  const args = [
    ...script,
    String(rounds),
    home,
    ...(build === undefined ? [] : ['--build', build]),
    ...projects,
  ];
  const self = uid === process.getuid?.();
  const [file, ...rest] = self
    ? [process.execPath, ...args]
    : ['/usr/bin/setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, ...args];
  const { stdout } = await run(file as string, rest, {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      TMPDIR: os.tmpdir(),
      CADRE_BENCH_GAP_MS: String(gapMs),
    },
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as unknown;
}

type PerCommand = Record<
  string,
  { medianMs: number; overheadMedianMs: number; childCpuMsPerCommand: number; cpuMsPerCommand: number }
>;

/** One line per backend and project, for the console. */
function summary(who: string, r: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const [where, v] of Object.entries(r)) {
    const per = (v as { perCommand?: PerCommand } | undefined)?.perCommand;
    if (per === undefined) continue;
    for (const [name, m] of Object.entries(per))
      lines.push(
        `${who.padEnd(10)} ${where.padEnd(15)} ${name.padEnd(8)} median ${m.medianMs.toFixed(1)} ms, CPU ${m.cpuMsPerCommand.toFixed(1)} ms (children ${m.childCpuMsPerCommand.toFixed(1)})` +
          (name === 'plain' ? '' : `, overhead ${m.overheadMedianMs.toFixed(1)} ms (goal <= ${GOAL_MS})`),
      );
  }
  const floor = r.floor as PerCommand | undefined;
  if (floor?.bwrapNamespacesOnly !== undefined)
    lines.push(
      `${who.padEnd(10)} floor over a bare spawn: bwrap's namespaces alone ${floor.bwrapNamespacesOnly.overheadMedianMs.toFixed(1)} ms, ` +
        `the launcher alone ${floor.launcherOnly?.overheadMedianMs.toFixed(1) ?? '-'} ms`,
    );
  return lines;
}

type Measured = Record<string, unknown>;

/** One user's measurements: per build, one per repetition, builds alternating in order. */
async function measureBuilds(
  uid: number,
  root: string,
  withRepository: boolean,
): Promise<Record<string, Measured[]>> {
  const out: Record<string, Measured[]> = {};
  const projects = new Map<string, { project: string; home: string }>();
  for (const b of builds) projects.set(b.label, await smallProject(root, uid, b.label));
  for (let rep = 0; rep < reps; rep++) {
    const order = rep % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      const mine = projects.get(b.label) as { project: string; home: string };
      const named = [
        `smallProject=${mine.project}`,
        ...(withRepository ? [`thisRepository=${process.cwd()}`] : []),
      ];
      (out[b.label] ??= []).push((await measureAs(uid, mine.home, named, b.dir)) as Measured);
    }
  }
  return out;
}

/** Each backend's median over the repetitions (overhead, and the time itself), per project. */
function overRepetitions(runs: readonly Measured[]): Measured {
  if (runs.length === 1) return runs[0] as Measured;
  const merged: Record<string, { perCommand: PerCommand; repetitions: number }> = {};
  for (const where of Object.keys(runs[0] ?? {})) {
    const per = (runs[0]?.[where] as { perCommand?: PerCommand } | undefined)?.perCommand;
    if (per === undefined) continue;
    const perCommand: PerCommand = {};
    for (const name of Object.keys(per)) {
      const of = (k: 'medianMs' | 'overheadMedianMs' | 'childCpuMsPerCommand' | 'cpuMsPerCommand') =>
        +median(
          runs.map((r) => (r[where] as { perCommand: PerCommand }).perCommand[name]?.[k] ?? NaN),
        ).toFixed(2);
      perCommand[name] = {
        medianMs: of('medianMs'),
        overheadMedianMs: of('overheadMedianMs'),
        childCpuMsPerCommand: of('childCpuMsPerCommand'),
        cpuMsPerCommand: of('cpuMsPerCommand'),
      };
    }
    merged[where] = { perCommand, repetitions: runs.length };
  }
  return { ...merged, floor: runs[0]?.floor, runs };
}

const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-sandbox-')));
const results: Record<string, unknown> = {
  rounds,
  reps,
  gapMs,
  interleaved: true,
  loadAverage: os.loadavg().map((l) => +l.toFixed(1)),
};
try {
  const uid = process.getuid?.() ?? 0;
  const who = uid === 0 ? 'root' : 'user';
  const asMe = await measureBuilds(uid, root, true);
  if (uid === 0) await chown(root, NOBODY, NOBODY);
  const asNobody = uid === 0 ? await measureBuilds(NOBODY, root, false) : undefined;
  for (const b of builds) {
    const name = b.label === '' ? '' : ` ${b.label}`;
    const mine = overRepetitions(asMe[b.label] ?? []);
    results[b.label === '' ? who : `${who}@${b.label}`] = mine;
    console.log(summary(`${who}${name}`, mine).join('\n'));
    if (asNobody !== undefined) {
      const theirs = overRepetitions(asNobody[b.label] ?? []);
      results[b.label === '' ? 'uid65534' : `uid65534@${b.label}`] = theirs;
      console.log(summary(`uid 65534${name}`, theirs).join('\n'));
    }
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
results.loadAverageAfter = os.loadavg().map((l) => +l.toFixed(1));
console.log(
  `load average ${JSON.stringify(results.loadAverage)} -> ${JSON.stringify(results.loadAverageAfter)}`,
);
console.log(`wrote ${await writeResult('sandbox', results)}`);
