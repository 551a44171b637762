// Finds what the sandbox must hide inside a directory tree it makes visible (the project, extra
// readable directories): secrets, sockets, paths named by deny rules. Listings are cached per
// directory and reused while the directory's change time (ctime, which no process can set back) is
// unchanged, so a command in a project already scanned costs one stat per directory. A directory
// changed in the last moment is listed again each time (see RACY_NS).
import { statSync, type Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** What kind of entry a listing holds (symbolic links are never followed). */
type EntryType = 'dir' | 'file' | 'socket' | 'symlink' | 'other';

/** One scan of `scanAll`: its judge, the judge's cache key (see `scan`) and its entry cap. */
export interface ScanSpec {
  judge: ScanJudge;
  key?: string;
  cap?: number;
}

/** The verdict on one entry: hide it, walk into it (directories), or leave it visible. */
type ScanVerdict = 'hide' | 'descend' | 'keep';

/** Decides about one entry, by its absolute path and type. */
export type ScanJudge = (abs: string, type: EntryType) => ScanVerdict;

/** Something to hide: a path and whether it is a directory. */
export interface HiddenEntry {
  path: string;
  dir: boolean;
}

/** The outcome of a scan. */
export interface ScanResult {
  hidden: HiddenEntry[];
  /** Entries looked at. */
  entries: number;
  /** False when the entry cap stopped the walk: what was not listed was not checked. */
  complete: boolean;
}

/** What one judge made of one listing: reused while the listing is. */
interface Verdicts {
  hidden: HiddenEntry[];
  descend: string[];
}

interface Listing {
  ctime: bigint;
  entries: readonly (readonly [string, EntryType])[];
  /** Verdicts per judge key (see `scan`). */
  verdicts?: Map<string, Verdicts>;
}

function typeOf(d: Dirent): EntryType {
  if (d.isDirectory()) return 'dir';
  if (d.isFile()) return 'file';
  if (d.isSocket()) return 'socket';
  if (d.isSymbolicLink()) return 'symlink';
  return 'other';
}

/**
 * Change times come from a clock that may advance only every tick (up to 10 ms; kernels without
 * fine-grained timestamps): a directory changed this recently could change again in the same tick
 * and keep its time, so a listing of it is used for this scan but not cached.
 */
const RACY_NS = 50_000_000n;

/** Default cap on entries per scan: past it the scan is incomplete, and callers fail closed. */
const SCAN_ENTRY_CAP = 300_000;
/** Directories listed at once. */
const PARALLEL = 32;
/** Cached directories checked between two yields to the event loop. */
const SYNC_CHUNK = 2000;

/** Directory listings cached by change time; one per process is enough. */
export class TreeScanner {
  private readonly listings = new Map<string, Listing>();

  /**
   * A cached listing still valid, checked with a synchronous stat: a few microseconds each, where
   * the promise form costs ten times that, and a scan checks every directory of the tree.
   */
  private fresh(dir: string): Listing | undefined {
    const cached = this.listings.get(dir);
    if (cached === undefined) return undefined;
    const st = statSync(dir, { bigint: true, throwIfNoEntry: false });
    return st?.isDirectory() && st.ctimeNs === cached.ctime ? cached : undefined;
  }

  /** The entries of `dir`, from the cache when its ctime is unchanged; `gone` or `unreadable` otherwise. */
  private async list(dir: string): Promise<Listing | 'gone' | 'unreadable'> {
    const started = BigInt(Date.now()) * 1_000_000n;
    const st = await stat(dir, { bigint: true }).catch(() => undefined);
    if (st === undefined || !st.isDirectory()) {
      this.listings.delete(dir);
      return 'gone';
    }
    const dirents = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
    if (dirents === undefined) return 'unreadable';
    const listing: Listing = { ctime: st.ctimeNs, entries: dirents.map((d) => [d.name, typeOf(d)] as const) };
    // Another stat after listing: a change during readdir leaves a ctime that will not match.
    const after = await stat(dir, { bigint: true }).catch(() => undefined);
    if (after?.ctimeNs === st.ctimeNs && st.ctimeNs < started - RACY_NS) this.listings.set(dir, listing);
    else this.listings.delete(dir);
    return listing;
  }

  /** The verdicts of `judge` on one listing (cached on it under `key`, when given). */
  private verdicts(dir: string, listing: Listing, judge: ScanJudge, key: string | undefined): Verdicts {
    const cached = key === undefined ? undefined : listing.verdicts?.get(key);
    if (cached !== undefined) return cached;
    const out: Verdicts = { hidden: [], descend: [] };
    for (const [name, type] of listing.entries) {
      const abs = path.join(dir, name);
      const verdict = judge(abs, type);
      if (verdict === 'hide') out.hidden.push({ path: abs, dir: type === 'dir' });
      else if (verdict === 'descend' && type === 'dir') out.descend.push(abs);
    }
    if (key !== undefined) (listing.verdicts ??= new Map()).set(key, out);
    return out;
  }

  /**
   * Walks `root` (itself never hidden) breadth-first, asking `judge` about every entry. A directory
   * that exists but cannot be listed is reported hidden: what cannot be checked is not shown. One
   * that vanished during the walk is skipped. `key` names the judge (the same key must mean the
   * same verdicts): unchanged directories then reuse the verdicts of the last scan.
   */
  async scan(root: string, judge: ScanJudge, cap = SCAN_ENTRY_CAP, key?: string): Promise<ScanResult> {
    const [result] = await this.scanAll(root, [{ judge, cap, ...(key !== undefined ? { key } : {}) }]);
    return result as ScanResult;
  }

  /**
   * Several scans of `root` in one pass: each directory any of them reaches is checked (or listed)
   * once, and each judge sees exactly the entries its own `scan` would. A judge past its cap stops
   * there (its result incomplete); the others go on.
   */
  async scanAll(root: string, specs: readonly ScanSpec[]): Promise<ScanResult[]> {
    const walks = specs.map((s) => ({ ...s, hidden: [] as HiddenEntry[], entries: 0, complete: true }));
    let checked = 0;
    // Each directory to look at, with the scans that reached it.
    let queue = new Map<string, number[]>([[root, walks.map((_, i) => i)]]);
    let next = new Map<string, number[]>();
    const take = (dir: string, listing: Listing | 'gone' | 'unreadable', by: readonly number[]) => {
      for (const i of by) {
        const w = walks[i];
        if (w === undefined || !w.complete || listing === 'gone') continue;
        if (listing === 'unreadable') {
          if (dir !== root) w.hidden.push({ path: dir, dir: true });
          continue;
        }
        w.entries += listing.entries.length;
        if (w.entries > (w.cap ?? SCAN_ENTRY_CAP)) {
          w.complete = false;
          continue;
        }
        const v = this.verdicts(dir, listing, w.judge, w.key);
        w.hidden.push(...v.hidden);
        for (const d of v.descend) {
          const reached = next.get(d);
          if (reached === undefined) next.set(d, [i]);
          else reached.push(i);
        }
      }
    };
    while (queue.size > 0 && walks.some((w) => w.complete)) {
      const stale: [string, number[]][] = [];
      for (const [dir, by] of queue) {
        const fresh = this.fresh(dir);
        if (fresh === undefined) stale.push([dir, by]);
        else take(dir, fresh, by);
        if (++checked % SYNC_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      for (let i = 0; i < stale.length; i += PARALLEL) {
        const batch = stale.slice(i, i + PARALLEL);
        const listings = await Promise.all(batch.map(([dir]) => this.list(dir)));
        for (const [j, listing] of listings.entries()) {
          const [dir, by] = batch[j] as [string, number[]];
          take(dir, listing, by);
        }
      }
      queue = next;
      next = new Map();
    }
    return walks.map((w) => ({ hidden: w.hidden, entries: w.entries, complete: w.complete }));
  }

  /** Forgets every cached listing (tests, or after a huge tree was scanned once). */
  clear(): void {
    this.listings.clear();
  }
}
