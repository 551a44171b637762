// bench/sandbox: what the command sandbox costs per command, each backend against an unsandboxed
// spawn of the same `bash -c true`, measured side by side: the variants are interleaved in every
// round, so a machine busy with something else slows them alike. Measured as the user running the
// bench and, when that is root, again as an unprivileged user (uid 65534, under setpriv), since
// root and other users get different process caps and mounts. Projects: a small one, and (for
// the running user) this repository (about 16,000 entries, so the per-command secret scan has
// real work). Also the time to prepare a sandbox without running it, the one-time probe, and the
// floor: bwrap's namespaces alone against a bare spawn.
// Goal: overhead <= 10 ms median per command for each backend.
// Run: npx tsx bench/sandbox.ts [--rounds N]
import { execFile } from 'node:child_process';
import { chown, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeResult } from './support/stats.js';

const run = promisify(execFile);
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 40;
const NOBODY = 65534;
const GOAL_MS = 10;

/** A small project (with a `.env` to hide) and a home, owned by `uid`. */
async function smallProject(root: string, uid: number): Promise<{ project: string; home: string }> {
  const base = path.join(root, `uid-${uid}`);
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
async function measureAs(uid: number, home: string, projects: string[]): Promise<unknown> {
  const script = ['--import', 'tsx', path.join('bench', 'support', 'sandbox-measure.ts')];
  const args = [...script, String(rounds), home, ...projects];
  const self = uid === process.getuid?.();
  const [file, ...rest] = self
    ? [process.execPath, ...args]
    : ['/usr/bin/setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, ...args];
  const { stdout } = await run(file as string, rest, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: os.tmpdir() },
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as unknown;
}

type PerCommand = Record<
  string,
  { medianMs: number; overheadMedianMs: number; childCpuMsPerCommand: number }
>;

/** One line per backend and project, for the console. */
function summary(who: string, r: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const [where, v] of Object.entries(r)) {
    const per = (v as { perCommand?: PerCommand } | undefined)?.perCommand;
    if (per === undefined) continue;
    for (const [name, m] of Object.entries(per))
      lines.push(
        `${who.padEnd(10)} ${where.padEnd(15)} ${name.padEnd(8)} median ${m.medianMs.toFixed(1)} ms, child CPU ${m.childCpuMsPerCommand.toFixed(1)} ms` +
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

const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-sandbox-')));
const results: Record<string, unknown> = {
  rounds,
  interleaved: true,
  loadAverage: os.loadavg().map((l) => +l.toFixed(1)),
};
try {
  const uid = process.getuid?.() ?? 0;
  const mine = await smallProject(root, uid);
  const asMe = (await measureAs(uid, mine.home, [
    `smallProject=${mine.project}`,
    `thisRepository=${process.cwd()}`,
  ])) as Record<string, unknown>;
  results[uid === 0 ? 'root' : 'user'] = asMe;
  console.log(summary(uid === 0 ? 'root' : 'user', asMe).join('\n'));
  if (uid === 0) {
    await chown(root, NOBODY, NOBODY);
    const theirs = await smallProject(root, NOBODY);
    const asNobody = (await measureAs(NOBODY, theirs.home, [`smallProject=${theirs.project}`])) as Record<
      string,
      unknown
    >;
    results.uid65534 = asNobody;
    console.log(summary('uid 65534', asNobody).join('\n'));
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
results.loadAverageAfter = os.loadavg().map((l) => +l.toFixed(1));
console.log(
  `load average ${JSON.stringify(results.loadAverage)} -> ${JSON.stringify(results.loadAverageAfter)}`,
);
console.log(`wrote ${await writeResult('sandbox', results)}`);
