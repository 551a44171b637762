// Turns a plan and a shell command into the program to spawn, for the backend in force: bwrap behind
// a launcher that dies with cadre, joins the pids cgroup before anything is forked (root) and opens
// the set-ID seccomp filter for bwrap's --seccomp, with the command's shell capping its processes
// (RLIMIT_NPROC) before its first word for a user other than root; or the unshare backend's
// launcher, one perl process that does all of that itself (pid_max or RLIMIT_NPROC included).
import { bwrapArgs } from './bwrap.js';
import { pidMaxFor } from './process-cap.js';
import { setidFilter } from './seccomp-bpf.js';
import { SECCOMP_FD, seccompFile } from './seccomp-load.js';
import { FEED_FD, SANDBOX_LIMITS, type SandboxPlan, type SandboxStatus } from './types.js';
import { unshareLaunch, unshareMounts } from './unshare.js';
import { unshareFeed } from './unshare-launcher.js';
import type { Workspace } from './workspace.js';

/**
 * Closes every descriptor above 2 before the command's first word runs, on the same line so that
 * bash's line numbers stay the command's. Node passes on what cadre itself inherited without
 * close-on-exec (a directory or pipe some parent process leaked): inside the sandbox such a
 * descriptor still leads to the host (`/proc/self/fd/N/…` reads the whole disk through a leaked
 * `/`), and no backend closes it: bwrap passes them on, and under unshare the command is the
 * namespace's first process.
 */
const CLOSE_INHERITED =
  'for __cadre_fd in /proc/self/fd/*; do __cadre_fd=${__cadre_fd##*/}; case $__cadre_fd in 0|1|2|*[!0-9]*|"") ;; *) eval "exec $__cadre_fd>&-" ;; esac; done; unset __cadre_fd; ';

/** What to spawn. */
export interface LaunchSpec {
  file: string;
  args: string[];
  /** Variables the launcher itself needs in its environment (it removes them before the command). */
  env?: Record<string, string>;
  /**
   * What depends on the plan, to write to the launcher's `FEED_FD` (then closed) once the plan is
   * made: the launcher starts before, and waits for it before it mounts anything.
   */
  feed(plan: SandboxPlan): Buffer;
}

/** Inputs of `launchSpec`. */
export interface LaunchRequest {
  status: SandboxStatus;
  /** The shell command, run as `bash -c`. */
  command: string;
  /** Its directory (the plan's `cwd`). */
  cwd: string;
  ws: Workspace;
  /** The file that joins a pids cgroup (`tasks` or `cgroup.procs`), written first (root, cgroup cap). */
  cgroupProcs?: string;
}

/**
 * The spawn for one sandboxed command, before its plan is made. Throws when the status has no
 * backend, or when the set-ID filter cannot be applied here (an architecture without a syscall
 * table, no launcher shell to hand bwrap its descriptor): the probe's trial then fails, and no
 * command runs.
 */
export function launchSpec(req: LaunchRequest): LaunchSpec {
  const { status } = req;
  if (!status.available || status.bash === undefined)
    throw new Error('launchSpec needs an available sandbox');
  const filter = setidFilter(status.arch);
  if (filter === undefined)
    throw new Error(
      `cadre's seccomp filter, which keeps commands from making set-user-ID files, has no syscall table for ${status.arch} (it covers x86_64 and aarch64)`,
    );
  const rlimit = status.processCap.kind === 'rlimit';
  // Under bwrap, the shell's own `ulimit` sets the cap inside the user namespace, as a prlimit
  // program there would, for a program less: both limits, which nothing inside may raise again
  // (that takes CAP_SYS_RESOURCE outside), or the command does not run.
  const cap = rlimit && status.mode === 'bwrap' ? `ulimit -u ${SANDBOX_LIMITS.processes} || exit 125; ` : '';
  const command = [status.bash, '-c', `${cap}${CLOSE_INHERITED}${req.command}`];
  const { ws } = req;
  if (status.mode === 'unshare' && status.unshare !== undefined) {
    // The launcher is the whole chain: it dies with cadre, joins the cgroup and sets the caps itself.
    const [file, ...args] = unshareLaunch({
      tools: status.unshare,
      ws,
      filter,
      command,
      cwd: req.cwd,
      parentPid: process.pid,
      uid: status.uid,
      gid: status.gid,
      ...(req.cgroupProcs !== undefined ? { cgroupProcs: req.cgroupProcs } : {}),
      ...(status.processCap.kind === 'pid-max' ? { pidMax: pidMaxFor() } : {}),
      ...(rlimit ? { nproc: SANDBOX_LIMITS.processes } : {}),
    });
    return {
      file: file as string,
      args,
      // perl would warn on every command where LANG names a locale that is not installed; the
      // launcher removes the variable before the command runs.
      env: { PERL_BADLANG: '0' },
      feed: (plan) => unshareFeed(unshareMounts(sameCwd(plan, req.cwd), ws)),
    };
  }
  if (status.mode !== 'bwrap' || status.bwrapPath === undefined || status.bwrapFeatures === undefined)
    throw new Error(`no launcher for sandbox mode ${status.mode}`);
  const sh = status.sh;
  if (sh === undefined)
    throw new Error('no system sh to open the seccomp filter for bwrap (--seccomp needs a descriptor)');
  const features = status.bwrapFeatures;
  const seccomp = seccompFile(ws.dir, filter);
  return guarded(
    {
      file: status.bwrapPath,
      // bwrap reads its options, NUL-terminated, from the descriptor (then closes it); the command
      // stays on its command line, which bwrap takes the command from.
      args: ['--args', String(FEED_FD), '--', ...command],
      feed: (plan) => {
        const args = bwrapArgs(sameCwd(plan, req.cwd), {
          emptyDir: ws.emptyDir,
          emptyFile: ws.emptyFile,
          root: status.uid === 0,
          features,
          seccompFd: SECCOMP_FD,
        });
        if (args.pop() !== '--') throw new Error("bwrap's options must end with --");
        return Buffer.from(args.map((a) => `${a}\0`).join(''));
      },
    },
    { sh, setpriv: status.setpriv },
    req.cgroupProcs,
    seccomp,
  );
}

/** The plan, checked to be for the directory the launcher was started in. */
function sameCwd(plan: SandboxPlan, cwd: string): SandboxPlan {
  if (plan.cwd !== cwd) throw new Error(`a plan for ${plan.cwd} fed to a launch in ${cwd}`);
  return plan;
}

/**
 * bwrap wrapped so that it dies with cadre, even when cadre is killed outright: setpriv sets a
 * parent-death signal, and the shell after it checks that its parent is still this process (had
 * cadre died before the signal was set, nothing would ever send it). The shell also joins the
 * command's pids cgroup, when there is one, before anything can fork, and opens the seccomp
 * filter's file on the descriptor bwrap reads it from.
 */
function guarded(
  spec: LaunchSpec,
  { sh, setpriv }: { sh: string; setpriv: string | undefined },
  cgroupProcs: string | undefined,
  seccomp: string,
): LaunchSpec {
  // 0 is the writer itself: through v1's `tasks`, its one thread, without the global lock.
  const join = cgroupProcs === undefined ? '' : 'echo 0 > "$1" && shift && ';
  const script = `[ "$PPID" = "$1" ] || exit 125; shift; ${join}f=$1 && shift && exec "$@" ${SECCOMP_FD}< "$f"`;
  const launcher = setpriv === undefined ? [sh] : [setpriv, '--pdeathsig', 'KILL', sh];
  const [file, ...rest] = [
    ...launcher,
    '-c',
    script,
    'cadre-launch',
    String(process.pid),
    ...(cgroupProcs === undefined ? [] : [cgroupProcs]),
    seccomp,
    spec.file,
    ...spec.args,
  ];
  return { ...spec, file: file as string, args: rest };
}
