// What a command sees at /etc when the host's /etc holds files other users may not read (as root it
// always does: /etc/shadow, ssh host keys, /etc/ssl/private): a directory of the workspace that
// mirrors /etc without them, bound read-only at /etc in one mount, where hiding each of them took a
// mount of its own (about a dozen, and every bind mount makes the next one slower). Files and
// symbolic links are hard links where the file system allows (so an edit in place shows at once),
// copies or recreated links otherwise. The mirror is checked before every command against the
// change time of each directory it was made from (a file added, removed or renamed changes it, and
// no process can set a change time back), and made again when one has changed: a secret that
// appears in /etc is kept out as soon as the next command starts.
import {
  constants,
  type BigIntStats,
  accessSync,
  chmodSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { isUnder } from '../policy/path-match.js';
import type { SystemView } from './system-view.js';

/** One mirror: where it is, and the change time of each directory it was made from. */
interface Mirror {
  dir: string;
  /** When it was made (ms since the epoch). */
  madeAt: number;
  stamps: Map<string, bigint>;
  /** A directory had changed just before: a change in the same clock tick would keep its time. */
  racy: boolean;
}

/**
 * Change times come from a clock that advances in ticks (up to 10 ms): a directory changed this
 * recently could change again with the same time, so a mirror made from one is not trusted twice.
 */
const RACY_NS = 50_000_000n;

/** Past this many entries /etc is not mirrored (it is bound with one mount per hidden entry). */
const MIRROR_CAP = 20_000;

/** Whether this process can read `p` (root always can): what it cannot read it cannot mirror. */
function readableHere(p: string): boolean {
  if (process.getuid?.() === 0) return true;
  try {
    accessSync(p, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether an entry of /etc is left out: a socket, or what other users may not read (the system's
 * own rule, as in system-view.ts), or what this process cannot read.
 */
function leftOut(abs: string, st: BigIntStats): boolean {
  if (st.isSymbolicLink()) return false;
  return st.isSocket() || (st.mode & 0o004n) === 0n || !readableHere(abs);
}

/**
 * Puts `src` (a file or symbolic link) at `dest`: a hard link (of the link itself, which Linux
 * does not follow), else a copy with its mode, or the link recreated.
 */
function place(src: string, dest: string, st: BigIntStats): void {
  try {
    linkSync(src, dest);
  } catch {
    if (st.isSymbolicLink()) symlinkSync(readlinkSync(src), dest);
    else {
      copyFileSync(src, dest);
      chmodSync(dest, Number(st.mode & 0o7777n));
    }
  }
}

/** Mirrors `root` into `dest` (which must not exist); undefined past the cap. Synchronous: it must not interleave with itself. */
function mirror(root: string, dest: string): Mirror | undefined {
  const started = BigInt(Date.now()) * 1_000_000n;
  const stamps = new Map<string, bigint>();
  const modes: [string, number][] = [];
  let seen = 0;
  let queue: [string, string][] = [[root, dest]];
  mkdirSync(dest, { mode: 0o700 });
  while (queue.length > 0) {
    const next: [string, string][] = [];
    for (const [src, out] of queue) {
      // The change time is read before the listing: a change during it leaves a time that differs.
      const st = lstatSync(src, { bigint: true });
      stamps.set(src, st.ctimeNs);
      modes.push([out, Number(st.mode & 0o7777n) | 0o200]);
      for (const name of readdirSync(src)) {
        if (++seen > MIRROR_CAP) return undefined;
        const from = path.join(src, name);
        const to = path.join(out, name);
        const est = lstatSync(from, { bigint: true, throwIfNoEntry: false });
        if (est === undefined || leftOut(from, est)) continue;
        if (est.isDirectory()) {
          mkdirSync(to, { mode: 0o700 });
          next.push([from, to]);
        } else if (est.isFile() || est.isSymbolicLink()) place(from, to, est);
      }
    }
    queue = next;
  }
  // Modes last, each with the owner's write bit (the bind is read-only, and the workspace's removal
  // needs it): a directory of mode 0555 would refuse the entries made in it.
  for (const [dir, mode] of modes.reverse()) chmodSync(dir, mode);
  const racy = [...stamps.values()].some((ctime) => ctime > started - RACY_NS);
  return { dir: dest, madeAt: Date.now(), stamps, racy };
}

/** True while no directory the mirror was made from has changed. */
function fresh(m: Mirror): boolean {
  for (const [dir, ctime] of m.stamps)
    if (lstatSync(dir, { bigint: true, throwIfNoEntry: false })?.ctimeNs !== ctime) return false;
  return true;
}

/** A mirror made from a directory that had just changed is not made again sooner than this. */
const RACY_RETRY_MS = 1_000;

/**
 * Mirrors of one directory, made in a workspace and made again when the directory changes. The
 * first is made for a process's second command (about 30 ms for a Debian /etc, where each command
 * then saves a dozen mounts): a process that runs one command never pays for it.
 */
export class EtcView {
  private current: Mirror | undefined;
  private made = 0;
  private asked = 0;
  /** Set when a mirror could not be made (a full disk, an unreadable /etc): not tried again. */
  private failed = false;

  constructor(
    private readonly root: string,
    private readonly workspaceDir: string,
    private readonly firstAt = 2,
  ) {}

  /**
   * The mirror to bind at the root, up to date, or undefined when there is none to use (the
   * caller then binds the root itself and hides entry by entry). Earlier mirrors stay until the
   * workspace goes: a command being set up may still name one.
   */
  path(): string | undefined {
    if (++this.asked < this.firstAt || this.failed) return undefined;
    const m = this.current;
    if (m !== undefined && !m.racy && fresh(m)) return m.dir;
    // Made right after a change, a mirror is right for the command it was made for but proves
    // nothing later; where the directory keeps changing, it is made at most once a second.
    if (m?.racy === true && Date.now() - m.madeAt < RACY_RETRY_MS) return undefined;
    const dest = path.join(this.workspaceDir, `etc-view-${++this.made}`);
    try {
      this.current = mirror(this.root, dest);
    } catch {
      this.current = undefined;
    }
    if (this.current === undefined) this.failed = true;
    return this.current?.dir;
  }
}

/** The mirrors of /etc, by workspace. */
const views = new Map<string, EtcView>();

/**
 * The system view with /etc bound from its mirror, when /etc holds something to hide and the
 * mirror can be made; else `system` as it is (/etc bound, each hidden entry mounted over).
 */
export function mirrorEtc(system: SystemView, workspaceDir: string, root = '/etc'): SystemView {
  const etc = system.roots.find((r) => r.path === root && r.kind === 'dir');
  if (etc === undefined || !system.hidden.some((h) => isUnder(h.path, root))) return system;
  let view = views.get(workspaceDir);
  if (view === undefined) {
    view = new EtcView(root, workspaceDir);
    views.set(workspaceDir, view);
  }
  const source = view.path();
  if (source === undefined) return system;
  return {
    roots: system.roots.map((r) => (r === etc ? { path: root, kind: 'dir', source } : r)),
    hidden: system.hidden.filter((h) => !isUnder(h.path, root)),
    withheld: system.withheld,
  };
}
