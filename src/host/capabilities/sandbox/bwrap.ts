// The bubblewrap backend: a plan becomes bwrap's argument list. Every namespace bwrap offers is new
// (user, mount, PID, IPC, UTS, network, cgroup), so there is no network but loopback, no host
// process is visible and abstract unix sockets of the host are out of reach. Run as root, bwrap
// would keep every capability: `--cap-drop ALL` removes them (bounding set included), and
// `--disable-userns` stops a command from making a user namespace of its own. `--seccomp` installs
// the set-ID filter (seccomp-bpf.ts) just before the command runs.
import { SANDBOX_LIMITS, type MountOp, type SandboxPlan } from './types.js';

/** What the installed bwrap supports beyond the basics (older releases lack these). */
export interface BwrapFeatures {
  /** `--disable-userns` (0.8.0+). */
  disableUserns: boolean;
  /** `--size` for tmpfs (0.5.0+): without it the private /tmp has no size cap. */
  size: boolean;
}

/** Reads the features from `bwrap --help`. */
export function bwrapFeatures(help: string): BwrapFeatures {
  return { disableUserns: help.includes('--disable-userns'), size: help.includes('--size') };
}

/** Options of `bwrapArgs`. */
export interface BwrapOptions {
  /** An empty directory of the host, mounted read-only over hidden directories. */
  emptyDir: string;
  /** An empty file of the host, mounted read-only over hidden files. */
  emptyFile: string;
  /** True when cadre runs as root: capabilities must be dropped explicitly. */
  root: boolean;
  features: BwrapFeatures;
  /** The descriptor bwrap reads the set-ID seccomp filter from (installed just before the command). */
  seccompFd: number;
}

function tmpfs(target: string, size: number, features: BwrapFeatures): string[] {
  return features.size ? ['--size', String(size), '--tmpfs', target] : ['--tmpfs', target];
}

function mountArgs(op: MountOp, options: BwrapOptions): string[] {
  switch (op.kind) {
    case 'ro-bind':
      return ['--ro-bind', op.source, op.target];
    case 'bind':
      return ['--bind', op.source, op.target];
    case 'tmpfs':
      return tmpfs(op.target, op.sizeBytes, options.features);
    case 'hide-file':
      return ['--ro-bind', options.emptyFile, op.target];
    case 'hide-dir':
      return ['--ro-bind', options.emptyDir, op.target];
    case 'symlink':
      return ['--symlink', op.linkTarget, op.target];
    case 'dev':
      // bwrap's /dev is a tmpfs with no size cap: /dev/shm gets a capped one, the rest is read-only.
      return [
        '--dev',
        '/dev',
        ...tmpfs('/dev/shm', SANDBOX_LIMITS.shmBytes, options.features),
        '--remount-ro',
        '/dev',
      ];
    case 'proc':
      return ['--proc', '/proc'];
  }
}

/** bwrap's arguments for `plan`, up to and including `--`; the command follows. */
export function bwrapArgs(plan: SandboxPlan, options: BwrapOptions): string[] {
  const args = ['--unshare-all', '--unshare-user'];
  if (options.features.disableUserns) args.push('--disable-userns');
  args.push('--die-with-parent', '--new-session');
  if (options.root) args.push('--cap-drop', 'ALL');
  for (const op of plan.mounts) args.push(...mountArgs(op, options));
  args.push('--seccomp', String(options.seccompFd), '--chdir', plan.cwd, '--');
  return args;
}
