// The unshare backend, for machines without bubblewrap: the same namespaces and the same mounts,
// made with unshare(2) and mount(2) by one perl process (unshare-launcher.ts) instead of bwrap. The
// host makes the skeleton's mount points here (the skeleton is the process's, reused by every
// command); mount points inside a tmpfs of the plan are made in the namespace, once that tmpfs is
// mounted. When the namespace's first process ends, the kernel ends every process in it.
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isUnder } from '../policy/path-match.js';
import type { SetidFilter } from './seccomp-bpf.js';
import { unshareLauncher, type LauncherMount, type MakePoint } from './unshare-launcher.js';
import type { Workspace } from './workspace.js';
import { DEVICES } from './workspace.js';
import { SANDBOX_LIMITS, type MountOp, type SandboxPlan, type UnshareTools } from './types.js';

/** What holds a target when it is mounted: the skeleton, a tmpfs of the plan, or a host bind. */
type Container = 'skeleton' | 'tmpfs' | 'bind';

interface Earlier {
  target: string;
  tmpfs: boolean;
}

/** The latest, deepest earlier mount holding `target`, or undefined for the skeleton itself. */
function containerOf(target: string, earlier: readonly Earlier[]): Earlier | undefined {
  let best: Earlier | undefined;
  for (const m of earlier)
    if (isUnder(target, m.target) && (best === undefined || m.target.length >= best.target.length)) best = m;
  return best;
}

function tmpfsOptions(sizeBytes: number, mode: string): string {
  return `size=${sizeBytes},mode=${mode}`;
}

/** The launcher's steps for one operation of the plan, mounted at `at` under the skeleton root. */
function launcherMounts(op: MountOp, root: string, make: MakePoint, ws: Workspace): LauncherMount[] {
  const at = path.join(root, 'target' in op ? op.target : '/');
  switch (op.kind) {
    case 'ro-bind':
      return [{ kind: 'bind', source: op.source, target: at, readOnly: true, make }];
    case 'bind':
      return [{ kind: 'bind', source: op.source, target: at, readOnly: false, make }];
    case 'tmpfs':
      return [
        {
          kind: 'tmpfs',
          target: at,
          options: tmpfsOptions(op.sizeBytes, op.target === '/tmp' ? '1777' : '0700'),
          make,
        },
      ];
    case 'hide-file':
      return [{ kind: 'bind', source: ws.emptyFile, target: at, readOnly: true, make }];
    case 'hide-dir':
      return [{ kind: 'bind', source: ws.emptyDir, target: at, readOnly: true, make }];
    case 'dev':
      return [
        ...DEVICES.map((d): LauncherMount => ({
          kind: 'bind',
          source: `/dev/${d}`,
          target: path.join(root, 'dev', d),
          readOnly: false,
          make: 'none',
        })),
        {
          kind: 'tmpfs',
          target: path.join(root, 'dev', 'shm'),
          options: tmpfsOptions(SANDBOX_LIMITS.shmBytes, '1777'),
          make: 'none',
        },
      ];
    case 'proc':
      return [{ kind: 'proc', target: path.join(root, 'proc') }];
    case 'symlink':
      return [];
  }
}

/** Options of `unshareLaunch`. */
export interface UnshareOptions {
  tools: UnshareTools;
  ws: Workspace;
  /** The set-ID filter the launcher installs. */
  filter: SetidFilter;
  /** The command once the sandbox is set up. */
  command: readonly string[];
  /** The command's directory (the plan's `cwd`). */
  cwd: string;
  /** cadre's pid, which the launcher checks is its parent. */
  parentPid: number;
  uid: number;
  gid: number;
  /** The pids cgroup to join first (root, cgroup cap). */
  cgroupProcs?: string;
  /** Cap the namespace's PIDs with its pid_max (root without a pids cgroup). */
  pidMax?: number;
  /** Cap processes with RLIMIT_NPROC (a user other than root). */
  nproc?: number;
}

/** The launcher's argv: it makes the namespaces, then waits for the plan on `FEED_FD`. */
export function unshareLaunch(options: UnshareOptions): string[] {
  return unshareLauncher({
    perl: options.tools.perl,
    filter: options.filter,
    parentPid: options.parentPid,
    ...(options.cgroupProcs !== undefined ? { cgroupProcs: options.cgroupProcs } : {}),
    uid: options.uid,
    gid: options.gid,
    root: options.ws.rootDir,
    cwd: options.cwd,
    ...(options.pidMax !== undefined ? { pidMax: options.pidMax } : {}),
    ...(options.nproc !== undefined ? { nproc: options.nproc } : {}),
    command: options.command,
  });
}

/**
 * Makes the skeleton's mount points for `plan` and returns the launcher's mount steps. Mount points
 * in the skeleton are made here; those inside a tmpfs are made by the launcher once it is mounted;
 * those in host binds already exist.
 */
export function unshareMounts(plan: SandboxPlan, ws: Workspace): LauncherMount[] {
  const root = ws.rootDir;
  const mounts: LauncherMount[] = [
    { kind: 'bind', source: root, target: root, readOnly: false, make: 'none' },
  ];
  const earlier: Earlier[] = [];
  for (const op of plan.mounts) {
    const target = 'target' in op ? op.target : op.kind === 'dev' ? '/dev' : '/proc';
    const holder = op.kind === 'dev' || op.kind === 'proc' ? undefined : containerOf(target, earlier);
    const where: Container = holder === undefined ? 'skeleton' : holder.tmpfs ? 'tmpfs' : 'bind';
    const isFile = op.kind === 'hide-file' || (op.kind === 'ro-bind' && !isDirectory(op.source));
    if (op.kind === 'symlink') {
      if (where === 'skeleton') makeSymlink(op.linkTarget, path.join(root, target));
      continue;
    }
    if (where === 'skeleton' && op.kind !== 'dev' && op.kind !== 'proc')
      makeMountPoint(path.join(root, target), isFile);
    const make: MakePoint = where === 'tmpfs' ? (isFile ? 'file' : 'dir') : 'none';
    mounts.push(...launcherMounts(op, root, make, ws));
    earlier.push({ target, tmpfs: op.kind === 'tmpfs' });
  }
  mounts.push({ kind: 'remount-ro', target: root });
  return mounts;
}

// The skeleton's files are few and small: synchronous calls, ten times cheaper than promises.
function isDirectory(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function makeSymlink(target: string, at: string): void {
  try {
    symlinkSync(target, at);
  } catch {
    // Made by an earlier command: the skeleton is the process's, and lasts as long.
  }
}

function makeMountPoint(p: string, file: boolean): void {
  mkdirSync(file ? path.dirname(p) : p, { recursive: true });
  if (file) writeFileSync(p, '', { flag: 'a' });
}
