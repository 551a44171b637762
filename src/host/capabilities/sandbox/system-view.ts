// The system part of a sandbox's file system, worked out once per process: which of the system
// directories exist (and which are merged-/usr links), and what in /etc and /opt must stay hidden.
// The rule for those two is the system's own: what other users may not read (/etc/shadow, ssh host
// keys, /etc/ssl/private) is hidden, because a command run by root would otherwise read it as the
// owner. Sockets are hidden wherever they are.
import { constants } from 'node:fs';
import { access, lstat, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { HiddenEntry } from './tree-scan.js';

/** System directories a command may read, when present. Everything else of the host is absent. */
const SYSTEM_ROOTS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/nix',
];

/** System directories walked for entries to hide (small, and where secrets live). */
const SCANNED_ROOTS = new Set(['/etc', '/opt']);
/** Past this many entries a scanned root is left out whole: it could not be checked. */
const SYSTEM_SCAN_CAP = 100_000;

/**
 * One present system root: a directory bound read-only (from `source` when that is a mirror of
 * it, see etc-view.ts), or a symbolic link recreated.
 */
type SystemRoot =
  { path: string; kind: 'dir'; source?: string } | { path: string; kind: 'symlink'; target: string };

/** The system part of every sandbox. */
export interface SystemView {
  roots: SystemRoot[];
  /** Entries inside the roots to hide. */
  hidden: HiddenEntry[];
  /** Roots left out because their scan did not finish, with the reason. */
  withheld: { path: string; reason: string }[];
}

/**
 * Whether this process can read `p` (root always can). What it cannot read is refused inside the
 * sandbox too, so it needs no mount to hide it: a user other than root saves those mounts.
 */
async function readableHere(p: string): Promise<boolean> {
  if (process.getuid?.() === 0) return true;
  return access(p, constants.R_OK).then(
    () => true,
    () => false,
  );
}

/** Hidden entries under `root`: not world-readable (and readable here), or a socket. Undefined past the cap. */
async function scanSystemDir(root: string, cap: number): Promise<HiddenEntry[] | undefined> {
  const hidden: HiddenEntry[] = [];
  let seen = 0;
  let queue = [root];
  while (queue.length > 0) {
    const next: string[] = [];
    for (const dir of queue) {
      const names = await readdir(dir).catch(() => undefined);
      if (names === undefined) {
        if (dir !== root) hidden.push({ path: dir, dir: true });
        continue;
      }
      const stats = await Promise.all(names.map((n) => lstat(path.join(dir, n)).catch(() => undefined)));
      for (const [i, st] of stats.entries()) {
        if (++seen > cap) return undefined;
        if (st === undefined || st.isSymbolicLink()) continue;
        const abs = path.join(dir, names[i] as string);
        if (st.isSocket() || ((st.mode & 0o004) === 0 && (await readableHere(abs))))
          hidden.push({ path: abs, dir: st.isDirectory() });
        else if (st.isDirectory()) next.push(abs);
      }
    }
    queue = next;
  }
  return hidden;
}

/** Works out the system view (uncached; see `systemView`). */
export async function buildSystemView(cap = SYSTEM_SCAN_CAP): Promise<SystemView> {
  const view: SystemView = { roots: [], hidden: [], withheld: [] };
  for (const root of SYSTEM_ROOTS) {
    const st = await lstat(root).catch(() => undefined);
    if (st === undefined) continue;
    if (st.isSymbolicLink()) {
      view.roots.push({ path: root, kind: 'symlink', target: await readlink(root) });
      continue;
    }
    if (!st.isDirectory()) continue;
    if (SCANNED_ROOTS.has(root)) {
      const hidden = await scanSystemDir(root, cap);
      if (hidden === undefined) {
        view.withheld.push({
          path: root,
          reason: `more than ${cap} entries; it could not be checked for secrets`,
        });
        continue;
      }
      view.hidden.push(...hidden);
    }
    view.roots.push({ path: root, kind: 'dir' });
  }
  return view;
}

let cached: Promise<SystemView> | undefined;

/** The system view, worked out once per process. */
export function systemView(): Promise<SystemView> {
  cached ??= buildSystemView();
  return cached;
}
