// Turns a plan and a shell command into the program to spawn, for the backend in force: bwrap's or
// unshare's argument list, the process cap inside (prlimit for a user other than root, pid_max for
// the unshare backend as root), and the pids cgroup joined before anything is forked (root).
import { bwrapArgs } from './bwrap.js';
import { pidMaxFor } from './process-cap.js';
import { SANDBOX_LIMITS, type SandboxPlan, type SandboxStatus } from './types.js';
import { unshareInvocation } from './unshare.js';
import type { Workspace } from './workspace.js';

/** What to spawn. */
export interface LaunchSpec {
  file: string;
  args: string[];
  /** Files written for this launch (fstabs), to remove once it has ended. */
  files: string[];
}

/** Inputs of `launchSpec`. */
export interface LaunchRequest {
  status: SandboxStatus;
  plan: SandboxPlan;
  /** The shell command, run as `bash -c`. */
  command: string;
  ws: Workspace;
  /** The file that joins a pids cgroup (`tasks` or `cgroup.procs`), written first (root, cgroup cap). */
  cgroupProcs?: string;
}

/** The spawn for one sandboxed command. Throws when the status has no backend. */
export async function launchSpec(req: LaunchRequest): Promise<LaunchSpec> {
  const { status, plan } = req;
  if (!status.available || status.bash === undefined)
    throw new Error('launchSpec needs an available sandbox');
  let inner = [status.bash, '-c', req.command];
  if (status.processCap.kind === 'rlimit' && status.prlimit !== undefined) {
    const n = SANDBOX_LIMITS.processes;
    inner = [status.prlimit, `--nproc=${n}:${n}`, '--', ...inner];
  }
  let spec: LaunchSpec;
  if (status.mode === 'bwrap' && status.bwrapPath !== undefined && status.bwrapFeatures !== undefined) {
    const args = bwrapArgs(plan, {
      emptyDir: req.ws.emptyDir,
      emptyFile: req.ws.emptyFile,
      root: status.uid === 0,
      features: status.bwrapFeatures,
    });
    spec = { file: status.bwrapPath, args: [...args, ...inner], files: [] };
  } else if (status.mode === 'unshare' && status.unshare !== undefined) {
    spec = await unshareInvocation(plan, {
      tools: status.unshare,
      ws: req.ws,
      command: inner,
      ...(status.processCap.kind === 'pid-max' ? { pidMax: pidMaxFor() } : {}),
    });
  } else throw new Error(`no launcher for sandbox mode ${status.mode}`);
  return guarded(spec, status, req.cgroupProcs);
}

/**
 * The launch wrapped so that it dies with cadre, even when cadre is killed outright: setpriv sets
 * a parent-death signal, and the shell after it checks that its parent is still this process (had
 * cadre died before the signal was set, nothing would ever send it). The shell also joins the
 * command's pids cgroup, when there is one, before anything can fork.
 */
function guarded(spec: LaunchSpec, status: SandboxStatus, cgroupProcs: string | undefined): LaunchSpec {
  if (status.sh === undefined) return spec;
  // 0 is the writer itself: through v1's `tasks`, its one thread, without the global lock.
  const join = cgroupProcs === undefined ? '' : 'echo 0 > "$1" && shift && ';
  const script = `[ "$PPID" = "$1" ] || exit 125; shift; ${join}exec "$@"`;
  const launcher =
    status.setpriv === undefined ? [status.sh] : [status.setpriv, '--pdeathsig', 'KILL', status.sh];
  const [file, ...rest] = [
    ...launcher,
    '-c',
    script,
    'cadre-launch',
    String(process.pid),
    ...(cgroupProcs === undefined ? [] : [cgroupProcs]),
    spec.file,
    ...spec.args,
  ];
  return { ...spec, file: file as string, args: rest };
}
