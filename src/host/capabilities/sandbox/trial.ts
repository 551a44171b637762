// The probe's parts that touch the system: running a program quietly, finding the unshare
// backend's program, and the trial command run in the very sandbox commands would get.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { findSystemBinary } from './binaries.js';
import { launchSpec } from './launch.js';
import { planSandbox } from './plan.js';
import { commandCgroup } from './process-cap.js';
import { systemView } from './system-view.js';
import { TreeScanner } from './tree-scan.js';
import { FEED_FD, type SandboxStatus, type UnshareTools } from './types.js';
import { workspace } from './workspace.js';

/** Runs a program to its end, with a minimal environment; never rejects. */
export function runQuiet(
  file: string,
  args: readonly string[],
  timeoutMs = 10_000,
  env: Record<string, string> = {},
): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { timeout: timeoutMs, env: { PATH: '/usr/bin:/bin', LANG: 'C', ...env } },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.trim() || (error?.message ?? '');
        resolve({ ok: error === null, output });
      },
    );
  });
}

/** Runs a launcher to its end, writing `feed` to its `FEED_FD`, as `runQuiet` does; never rejects. */
function runFed(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  feed: Buffer,
  timeoutMs = 10_000,
): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, [...args], {
      env: { PATH: '/usr/bin:/bin', LANG: 'C', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const sink = child.stdio[FEED_FD] as Writable | null | undefined;
    sink?.on('error', () => undefined);
    sink?.end(feed);
    child.on('error', (error) => resolve({ ok: false, output: error.message }));
    child.on('close', (code, signal) =>
      resolve({ ok: code === 0, output: output.trim() || `exit ${code ?? signal ?? '?'}` }),
    );
  });
}

/** The unshare backend's program (its launcher is perl), from the system directories, or what is missing. */
export async function unshareTools(): Promise<UnshareTools | string> {
  const perl = await findSystemBinary('perl');
  return 'reason' in perl ? perl.reason : { perl: perl.path };
}

/** The trial's pids cgroup, when that is the process cap and one can be made. */
function trialCgroup(status: SandboxStatus): ReturnType<typeof commandCgroup> | undefined {
  if (status.processCap.kind !== 'cgroup' || status.processCap.cgroupDir === undefined) return undefined;
  try {
    return commandCgroup(status.processCap.cgroupDir);
  } catch {
    return undefined;
  }
}

/**
 * The trial: it prints the seccomp mode it runs under (2 is a filter), with bash built-ins only. A
 * backend that runs commands without the set-ID filter does not count as working.
 */
const TRIAL_COMMAND =
  'm=none; while read -r k v; do [ "$k" = Seccomp: ] && m=$v; done < /proc/self/status; echo "cadre-sandbox-ok seccomp=$m"';

/** Runs the trial command in the sandbox `status` describes; the reason when it fails. */
export async function trial(status: SandboxStatus): Promise<string | undefined> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-probe-')));
  const cgroup = trialCgroup(status);
  const planned = await planSandbox(
    {
      projectDir: base,
      cwd: base,
      home: undefined,
      pathVar: '/usr/bin:/bin',
      extraRoots: [],
      allowRead: [],
      denyRead: [],
      protect: [],
      rules: {},
    },
    await systemView(),
    new TreeScanner(),
  );
  try {
    const spec = launchSpec({
      status,
      command: TRIAL_COMMAND,
      cwd: base,
      ws: await workspace(),
      ...(cgroup ? { cgroupProcs: cgroup.procs } : {}),
    });
    const r = await runFed(spec.file, spec.args, spec.env ?? {}, spec.feed(planned.plan));
    if (r.ok && r.output.includes('cadre-sandbox-ok seccomp=2')) return undefined;
    if (r.ok && r.output.includes('cadre-sandbox-ok'))
      return `the command ran without the seccomp filter that keeps it from making set-user-ID files (${r.output.split('\n').slice(-1).join('')})`;
    return r.output.split('\n').slice(-3).join(' ');
  } catch (error) {
    return (error as Error).message;
  } finally {
    await planned.protection.release();
    await cgroup?.remove();
    await rm(base, { recursive: true, force: true });
  }
}
