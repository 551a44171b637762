// The command sandbox's vocabulary: which backend runs a command, what probing found, the fixed
// limits every sandboxed command gets, and the mount operations both backends are built from.

/** A backend that can run a command isolated. */
export type SandboxBackend = 'bwrap' | 'unshare';

/** Which isolation a command ran under; `none` only when config says `"sandbox": "off"`. */
type SandboxKind = SandboxBackend | 'none';

/**
 * The descriptor a launcher reads the rest of its launch from once the plan is made (bwrap's
 * `--args`, the unshare launcher's mount steps): it starts while cadre still plans.
 */
export const FEED_FD = 4;

/** Limits of every sandboxed command. Fixed: they bound what one command can take from the host. */
export const SANDBOX_LIMITS = {
  /** Processes and threads at once (RLIMIT_NPROC, a pids cgroup, or the pid namespace's pid_max). */
  processes: 1024,
  /** The private /tmp (RAM). */
  tmpBytes: 512 * 1024 * 1024,
  /** The private home directory (RAM). */
  homeBytes: 256 * 1024 * 1024,
  /** /dev/shm (RAM). */
  shmBytes: 64 * 1024 * 1024,
} as const;

/** How the process count of a command is capped, and whether it is. */
export interface ProcessCap {
  kind: 'rlimit' | 'cgroup' | 'pid-max' | 'none';
  /** In words: the mechanism, or why there is none. */
  detail: string;
  /** For `cgroup`: the directory under which each command gets a cgroup of its own. */
  cgroupDir?: string;
}

/** One backend tried by the probe. */
export interface BackendAttempt {
  backend: SandboxBackend;
  ok: boolean;
  /** The executable tried, when one was found. */
  binary?: string;
  /** What happened, in words. */
  detail: string;
}

/** The system programs the unshare backend drives, each from a fixed system location. */
export interface UnshareTools {
  /** Runs the launcher: namespaces, mounts, pivot, capability drop, seccomp filter (unshare-launcher.ts). */
  perl: string;
}

/** The outcome of probing, once per process. */
export interface SandboxStatus {
  available: boolean;
  /** The backend in force, or `none`. */
  mode: SandboxKind;
  /** In words: what is in force, or why nothing is. */
  detail: string;
  /** Every backend tried, in order. */
  attempts: BackendAttempt[];
  /** When unavailable: what to do about it (install, sysctl, container flags, the opt-out). */
  fix?: string;
  /** The bwrap executable, when bwrap is in force. */
  bwrapPath?: string;
  /** What that bwrap supports. */
  bwrapFeatures?: { disableUserns: boolean; size: boolean };
  /** The programs of the unshare backend, when it is in force. */
  unshare?: UnshareTools;
  /** The bash that runs commands (a system one: it runs inside the sandbox). */
  bash?: string;
  /** A system `sh`: the launcher that checks cadre is alive and joins a pids cgroup. */
  sh?: string;
  /** A system `setpriv`: gives the launch a parent-death signal. */
  setpriv?: string;
  processCap: ProcessCap;
  /** The user id cadre runs as. */
  uid: number;
  gid: number;
  /** The machine's architecture as Node names it (`x64`, `arm64`): which seccomp filter applies. */
  arch: string;
}

/** One step of building a sandbox's file system, shared by both backends (applied in order). */
export type MountOp =
  /** Bind `source` read-only at `target`. */
  | { kind: 'ro-bind'; source: string; target: string }
  /** Bind `source` read-write at `target` (the project; directories pinned against rename). */
  | { kind: 'bind'; source: string; target: string }
  /** A fresh, size-capped tmpfs. */
  | { kind: 'tmpfs'; target: string; sizeBytes: number }
  /** Hide a file: an empty read-only file in its place (also used for sockets). */
  | { kind: 'hide-file'; target: string }
  /** Hide a directory: an empty read-only directory in its place. */
  | { kind: 'hide-dir'; target: string }
  /** A symbolic link (merged-/usr systems: /bin -> usr/bin). */
  | { kind: 'symlink'; linkTarget: string; target: string }
  /** A minimal /dev (null, zero, full, random, urandom, tty), read-only, with a capped /dev/shm. */
  | { kind: 'dev' }
  /** A /proc of the sandbox's own PID namespace. */
  | { kind: 'proc' };

/** A whole sandbox: the file system and where the command starts. */
export interface SandboxPlan {
  mounts: MountOp[];
  /** The working directory inside (the same path as on the host). */
  cwd: string;
  /** HOME inside. */
  home: string;
}
