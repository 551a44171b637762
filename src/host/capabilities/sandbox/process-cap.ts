// Caps how many processes one command can start. What works depends on who runs cadre (measured
// on Linux 6.x): for a user other than root, RLIMIT_NPROC set inside the sandbox's user namespace
// counts only that namespace's processes; for root, RLIMIT_NPROC is never enforced, so each command
// gets a pids cgroup of its own where the cgroup file system is writable (v1 `pids`, or v2 with the
// pids controller), and otherwise, with the unshare backend on Linux 6.14+, the PID namespace's own
// pid_max. The probe picks one; `cadre doctor` says which.
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { SANDBOX_LIMITS } from './types.js';

/** PIDs below this are reserved by the kernel: a namespace's pid_max must be above it. */
const RESERVED_PIDS = 300;

interface MountEntry {
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

function parseMountInfo(text: string): MountEntry[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [left = '', right = ''] = line.split(' - ');
      const f = left.split(' ');
      const r = right.split(' ');
      const unescape = (s: string) =>
        s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
      return {
        root: unescape(f[3] ?? ''),
        mountPoint: unescape(f[4] ?? ''),
        fsType: r[0] ?? '',
        superOptions: (r[2] ?? '').split(','),
      };
    });
}

/** Candidate parent directories for per-command pids cgroups, best first. */
async function candidates(): Promise<string[]> {
  const [mountinfo, own] = await Promise.all([
    readFile('/proc/self/mountinfo', 'utf8').catch(() => ''),
    readFile('/proc/self/cgroup', 'utf8').catch(() => ''),
  ]);
  const mounts = parseMountInfo(mountinfo);
  const lines = own.split('\n').map((l) => l.split(':'));
  const out: string[] = [];
  const v1 = mounts.find((m) => m.fsType === 'cgroup' && m.superOptions.includes('pids'));
  const v1Path = lines.find((l) => (l[1] ?? '').split(',').includes('pids'))?.[2];
  if (v1 !== undefined && v1Path !== undefined)
    out.push(path.join(v1.mountPoint, path.relative(v1.root, v1Path)));
  const v2 = mounts.find((m) => m.fsType === 'cgroup2');
  // In v2 a cgroup holding processes (cadre's own) cannot give controllers to children: use the
  // hierarchy's top, which can.
  if (v2 !== undefined) out.push(v2.mountPoint);
  return out;
}

/** Removes what processes that died without cleaning up left under `base` (empty ones only). */
async function removeStale(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const pid = /^cadre-(\d+)$/.exec(name)?.[1];
    if (pid === undefined || alive(Number(pid))) continue;
    removeCgroupDirSync(path.join(base, name));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A directory where this process can make pids cgroups, or undefined. Made once per process. */
export async function pidsCgroupDir(): Promise<string | undefined> {
  for (const base of await candidates()) {
    await removeStale(base);
    const dir = path.join(base, `cadre-${process.pid}`);
    try {
      await mkdir(dir);
    } catch {
      continue;
    }
    const usable = await readFile(path.join(dir, 'pids.max'), 'utf8').then(
      () => true,
      () => false,
    );
    if (usable) {
      process.once('exit', () => removeCgroupDirSync(dir));
      return dir;
    }
    await rmdir(dir).catch(() => undefined);
  }
  return undefined;
}

let seq = 0;

/**
 * A pids cgroup for one command: the file the launcher joins it through, and its removal. The
 * launcher writes 0 (itself) there. In a v1 hierarchy that file is `tasks`: a thread moving itself
 * takes no global lock, where a process moved through `cgroup.procs` write-locks every thread group
 * on the machine and waits for an RCU grace period (13 ms a command on this 2-core machine under
 * load, against nothing through `tasks`). The launcher is a single-threaded shell, so moving its
 * one thread moves the process, and everything it starts is born inside. v2 offers only
 * `cgroup.procs`.
 */
export function commandCgroup(parent: string): { procs: string; remove(): Promise<void> } {
  const dir = path.join(parent, `cmd-${++seq}`);
  // Synchronous: cgroupfs answers at once, where a promise would wait for the thread pool.
  mkdirSync(dir);
  try {
    writeFileSync(path.join(dir, 'pids.max'), String(SANDBOX_LIMITS.processes));
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  return {
    procs: existsSync(path.join(dir, 'tasks')) ? path.join(dir, 'tasks') : path.join(dir, 'cgroup.procs'),
    async remove() {
      // The PID namespace's end killed everything, but a process leaves the cgroup only once it is
      // reaped: wait for that, briefly at first. Never kill by the PIDs cgroup.procs lists: by the
      // time the signal is sent, a PID may belong to someone else's new process.
      for (let attempt = 0; attempt < 60; attempt++) {
        if (
          await rmdir(dir).then(
            () => true,
            () => false,
          )
        )
          return;
        await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 50)));
      }
    },
  };
}

/** Removes the process's cgroup parent and what is left in it (at exit, so synchronously). */
function removeCgroupDirSync(dir: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith('cmd-')) continue;
    try {
      rmdirSync(path.join(dir, name));
    } catch {
      // Still busy: the kernel removes nothing, and the next start sees a stale directory.
    }
  }
  try {
    rmdirSync(dir);
  } catch {
    // As above.
  }
}

/** The pid_max that caps a PID namespace at the process limit. */
export function pidMaxFor(limit: number = SANDBOX_LIMITS.processes): number {
  // PIDs run 1..pid_max-1: at most `limit` processes (the kernel's floor is RESERVED_PIDS + 1).
  return Math.max(limit + 1, RESERVED_PIDS + 1);
}
