// The unshare backend, for machines without bubblewrap: util-linux `unshare` makes the same new
// namespaces (user mapped to root, mount, PID, IPC, UTS, network, cgroup); inside, a short sh script
// mounts the plan onto a skeleton root (one `mount -a` per phase, from fstab files) and hands over
// to the last stage (unshare-stage.ts), which pivots into it, empties the capability sets (bounding
// set included), sets no_new_privs and the set-ID filter, so the namespace's root cannot unmount or
// remount anything, and execs the command. When that process (PID 1 of the namespace) ends, the
// kernel ends every process in it.
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isUnder } from '../policy/path-match.js';
import type { SetidFilter } from './seccomp-bpf.js';
import { unshareStage } from './unshare-stage.js';
import type { Workspace } from './workspace.js';
import { DEVICES } from './workspace.js';
import { SANDBOX_LIMITS, type MountOp, type SandboxPlan, type UnshareTools } from './types.js';

/** `'...'` quoting for sh. */
function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** fstab escaping (libmount unmangles \040 and friends). */
function fstabPath(p: string): string {
  return p.replace(/\\/g, '\\134').replace(/ /g, '\\040').replace(/\t/g, '\\011').replace(/\n/g, '\\012');
}

/** What holds a target when it is mounted: the skeleton, a tmpfs of the plan, or a host bind. */
type Container = 'skeleton' | 'tmpfs' | 'bind';

interface Earlier {
  target: string;
  tmpfs: boolean;
  /** The fstab phase that mounted it. */
  phase: number;
}

/** The latest, deepest earlier mount holding `target`, or undefined for the skeleton itself. */
function containerOf(target: string, earlier: readonly Earlier[]): Earlier | undefined {
  let best: Earlier | undefined;
  for (const m of earlier)
    if (isUnder(target, m.target) && (best === undefined || m.target.length >= best.target.length)) best = m;
  return best;
}

/** Everything the unshare backend runs for one command. */
export interface UnshareInvocation {
  file: string;
  args: string[];
  /** The fstab files written for it, to remove afterwards. */
  files: string[];
}

function fstabLine(op: MountOp, root: string, mkdirOk: boolean, ws: Workspace): string[] {
  const at = fstabPath(path.join(root, 'target' in op ? op.target : '/'));
  const mk = mkdirOk ? ',X-mount.mkdir' : '';
  switch (op.kind) {
    case 'ro-bind':
      return [`${fstabPath(op.source)} ${at} none bind,ro${mk} 0 0`];
    case 'bind':
      return [`${fstabPath(op.source)} ${at} none bind${mk} 0 0`];
    case 'tmpfs':
      return [
        `tmpfs ${at} tmpfs size=${op.sizeBytes},mode=${op.target === '/tmp' ? '1777' : '0700'},nosuid,nodev${mk} 0 0`,
      ];
    case 'hide-file':
      return [`${fstabPath(ws.emptyFile)} ${at} none bind,ro 0 0`];
    case 'hide-dir':
      return [`${fstabPath(ws.emptyDir)} ${at} none bind,ro${mk} 0 0`];
    case 'dev':
      return [
        ...DEVICES.map((d) => `/dev/${d} ${fstabPath(path.join(root, 'dev', d))} none bind 0 0`),
        `tmpfs ${fstabPath(path.join(root, 'dev', 'shm'))} tmpfs size=${SANDBOX_LIMITS.shmBytes},mode=1777,nosuid,nodev 0 0`,
      ];
    case 'proc':
      return [`proc ${fstabPath(path.join(root, 'proc'))} proc nosuid,nodev,noexec 0 0`];
    case 'symlink':
      return [];
  }
}

/** Options of `unshareInvocation`. */
export interface UnshareOptions {
  tools: UnshareTools;
  ws: Workspace;
  /** The set-ID filter the last stage installs. */
  filter: SetidFilter;
  /** The command after the sandbox is set up (the last stage is added in front of it). */
  command: readonly string[];
  /** Cap the namespace's PIDs with its pid_max (root without a pids cgroup). */
  pidMax?: number;
}

/**
 * Writes the fstab files and skeleton entries for `plan`, and returns how to run it. Mount points
 * in the skeleton are made here; those inside a tmpfs are made in the namespace (X-mount.mkdir for
 * directories, the script for files); those in host binds already exist.
 */
export async function unshareInvocation(
  plan: SandboxPlan,
  options: UnshareOptions,
): Promise<UnshareInvocation> {
  const { ws, tools } = options;
  const root = ws.rootDir;
  const phases: string[][] = [[`${fstabPath(root)} ${fstabPath(root)} none bind 0 0`]];
  // creations[k]: file mount points made in the namespace after phase k, before phase k + 1.
  const creations: string[][] = [];
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
    if (where === 'tmpfs' && isFile && holder !== undefined) {
      // A file mount point inside a tmpfs can be made only once that tmpfs is mounted.
      if (holder.phase === phases.length - 1) phases.push([]);
      const k = phases.length - 2;
      (creations[k] ??= []).push(path.join(root, target));
    }
    (phases[phases.length - 1] as string[]).push(...fstabLine(op, root, where === 'tmpfs' && !isFile, ws));
    earlier.push({ target, tmpfs: op.kind === 'tmpfs', phase: phases.length - 1 });
  }
  (phases[phases.length - 1] as string[]).push(
    `${fstabPath(root)} ${fstabPath(root)} none remount,bind,ro 0 0`,
  );
  const files: string[] = [];
  for (const lines of phases) {
    const file = ws.nextFile('fstab');
    writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    files.push(file);
  }
  const script = setupScript(tools, files, creations, root);
  const args = [
    '--user',
    '--map-root-user',
    '--mount',
    '--pid',
    '--fork',
    '--kill-child',
    '--ipc',
    '--uts',
    '--net',
    '--cgroup',
    '--propagation',
    'private',
    tools.sh,
    '-c',
    script,
    'cadre-sandbox',
  ];
  const stage = unshareStage(tools.perl, options.filter, plan.cwd, options.pidMax, options.command);
  // A cadre killed outright takes unshare with it through the launcher's parent-death signal
  // (launch.ts); --kill-child passes it on to the namespace.
  return { file: tools.unshare, args: [...args, ...stage], files };
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

/** The script run as the namespace's root: mount, enter the new root, then exec the rest of argv. */
function setupScript(
  tools: UnshareTools,
  fstabs: readonly string[],
  creations: readonly (string[] | undefined)[],
  root: string,
): string {
  const lines = ['set -e'];
  for (const [k, fstab] of fstabs.entries()) {
    lines.push(`${shQuote(tools.mount)} -a -T ${shQuote(fstab)}`);
    for (const file of creations[k] ?? []) {
      // `[` and `:` are sh built-ins: a mount point file costs no process unless its directory is missing.
      const dir = shQuote(path.dirname(file));
      lines.push(`[ -d ${dir} ] || ${shQuote(tools.mkdir)} -p ${dir}`, `: > ${shQuote(file)}`);
    }
  }
  // PERL_BADLANG=0: the last stage (perl) would warn on every command where LANG names a locale
  // that is not installed; it removes the variable before the command runs.
  lines.push(`cd ${shQuote(root)}`, 'PERL_BADLANG=0 exec "$@"');
  return lines.join('\n');
}
