// Finds what the sandbox must hide inside a directory tree it makes visible (the project, extra
// readable directories): secrets, sockets, paths named by deny rules. Listings are cached per
// directory and reused while the directory's change time (ctime, which no process can set back) is
// unchanged, so a command in a project already scanned costs one stat per directory. A directory
// changed in the last moment is listed again each time (see RACY_MS).
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
  /** Change time in milliseconds (see `fresh`). */
  ctime: number;
  entries: readonly (readonly [string, EntryType])[];
  /** Verdicts per judge key (see `scan`). */
  verdicts?: Map<string, Verdicts>;
  /** Where each set of scans goes next from here, per set of judge keys (see `reach`). */
  reach?: Map<string, Reach>;
}

/** The child directories some scans descend into from one listing, each with its scans' bits. */
interface Reach {
  dirs: string[];
  masks: number[];
}

/** One scan under way in `scanAll`. */
interface Walk extends ScanSpec {
  hidden: HiddenEntry[];
  entries: number;
  complete: boolean;
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
const RACY_MS = 50;

/** Default cap on entries per scan: past it the scan is incomplete, and callers fail closed. */
const SCAN_ENTRY_CAP = 300_000;
/** Directories listed at once. */
const PARALLEL = 32;
/** Cached directories checked between two yields to the event loop. */
const SYNC_CHUNK = 2000;
/** Scans in one pass: each is a bit of a 32-bit mask. */
const MAX_SCANS = 30;

/** Directory listings cached by change time; one per process is enough. */
export class TreeScanner {
  private readonly listings = new Map<string, Listing>();

  /**
   * A cached listing still valid, checked with a synchronous stat: a few microseconds each, where
   * the promise form costs ten times that, and a scan checks every directory of the tree. The
   * change time is compared as a double of milliseconds (the bigint form allocates about fifteen
   * bigints per stat, and cost 0.4 µs more of the 1.3): exact enough, because a cached ctime is
   * more than RACY_MS older than the listing's start, and any later change is stamped with a time
   * after that start (less the clock's tick, at most 10 ms), so the two differ by more than 40 ms,
   * where a double near today's epoch resolves 0.25 µs (0.5 µs after 2039).
   */
  private fresh(dir: string): Listing | undefined {
    const cached = this.listings.get(dir);
    if (cached === undefined) return undefined;
    const st = statSync(dir, { throwIfNoEntry: false });
    return st?.isDirectory() && st.ctimeMs === cached.ctime ? cached : undefined;
  }

  /** The entries of `dir`, from the cache when its ctime is unchanged; `gone` or `unreadable` otherwise. */
  private async list(dir: string): Promise<Listing | 'gone' | 'unreadable'> {
    const started = Date.now();
    const st = await stat(dir).catch(() => undefined);
    if (st === undefined || !st.isDirectory()) {
      this.listings.delete(dir);
      return 'gone';
    }
    const dirents = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
    if (dirents === undefined) return 'unreadable';
    const listing: Listing = { ctime: st.ctimeMs, entries: dirents.map((d) => [d.name, typeOf(d)] as const) };
    // Another stat after listing: a change during readdir leaves a ctime that will not match.
    const after = await stat(dir).catch(() => undefined);
    if (after?.ctimeMs === st.ctimeMs && st.ctimeMs < started - RACY_MS) this.listings.set(dir, listing);
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
   * The directories the scans in `mask` descend into from one listing, each with the scans that
   * do (a bit per index in `walks`); cached on the listing under `combo` when every scan has a key.
   * A child is reached only from its one parent, so merging one listing's lists dedupes them all.
   */
  private reach(dir: string, listing: Listing, walks: readonly Walk[], mask: number, combo?: string): Reach {
    const cached = combo === undefined ? undefined : listing.reach?.get(combo);
    if (cached !== undefined) return cached;
    const at = new Map<string, number>();
    const out: Reach = { dirs: [], masks: [] };
    for (const [i, w] of walks.entries()) {
      if ((mask & (1 << i)) === 0) continue;
      for (const d of this.verdicts(dir, listing, w.judge, w.key).descend) {
        const j = at.get(d);
        if (j === undefined) {
          at.set(d, out.dirs.length);
          out.dirs.push(d);
          out.masks.push(1 << i);
        } else out.masks[j] = (out.masks[j] as number) | (1 << i);
      }
    }
    if (combo !== undefined) (listing.reach ??= new Map()).set(combo, out);
    return out;
  }

  /**
   * Several scans of `root` in one pass: each directory any of them reaches is checked (or listed)
   * once, and each judge sees exactly the entries its own `scan` would. A judge past its cap stops
   * there (its result incomplete); the others go on. The scans that reach a directory are a bit
   * mask, and an unchanged directory's merged list of where they go next is reused: a walk of an
   * unchanged tree costs little more than its stats.
   */
  async scanAll(root: string, specs: readonly ScanSpec[]): Promise<ScanResult[]> {
    if (specs.length > MAX_SCANS) throw new RangeError(`at most ${MAX_SCANS} scans in one pass`);
    const walks: Walk[] = specs.map((s) => ({ ...s, hidden: [], entries: 0, complete: true }));
    let live = (1 << walks.length) - 1;
    // The cache key of each set of scans (by mask): undefined when one of them has no key; a scan
    // not in the set is null, which no key (a string, even empty) can be taken for.
    const combos = new Map<number, string | undefined>();
    const comboOf = (mask: number): string | undefined => {
      if (combos.has(mask)) return combos.get(mask);
      const keys = walks.map((w, i) => ((mask & (1 << i)) === 0 ? null : w.key));
      const combo = keys.includes(undefined) ? undefined : JSON.stringify(keys);
      combos.set(mask, combo);
      return combo;
    };
    let dirs = [root];
    let masks = [live];
    let nextDirs: string[] = [];
    let nextMasks: number[] = [];
    const take = (dir: string, listing: Listing | 'gone' | 'unreadable', reached: number) => {
      let mask = reached & live;
      if (mask === 0 || listing === 'gone') return;
      for (const [i, w] of walks.entries()) {
        if ((mask & (1 << i)) === 0) continue;
        if (listing === 'unreadable') {
          if (dir !== root) w.hidden.push({ path: dir, dir: true });
          continue;
        }
        w.entries += listing.entries.length;
        if (w.entries > (w.cap ?? SCAN_ENTRY_CAP)) {
          w.complete = false;
          live &= ~(1 << i);
          mask &= ~(1 << i);
          continue;
        }
        const { hidden } = this.verdicts(dir, listing, w.judge, w.key);
        for (const h of hidden) w.hidden.push(h);
      }
      if (listing === 'unreadable' || mask === 0) return;
      const next = this.reach(dir, listing, walks, mask, comboOf(mask));
      for (let j = 0; j < next.dirs.length; j++) {
        nextDirs.push(next.dirs[j] as string);
        nextMasks.push(next.masks[j] as number);
      }
    };
    let checked = 0;
    while (dirs.length > 0 && live !== 0) {
      const stale: number[] = [];
      for (let k = 0; k < dirs.length; k++) {
        if (((masks[k] as number) & live) === 0) continue;
        const dir = dirs[k] as string;
        const fresh = this.fresh(dir);
        if (fresh === undefined) stale.push(k);
        else take(dir, fresh, masks[k] as number);
        if (++checked % SYNC_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      for (let i = 0; i < stale.length; i += PARALLEL) {
        const batch = stale.slice(i, i + PARALLEL);
        const listings = await Promise.all(batch.map((k) => this.list(dirs[k] as string)));
        for (const [j, listing] of listings.entries()) {
          const k = batch[j] as number;
          take(dirs[k] as string, listing, masks[k] as number);
        }
      }
      [dirs, masks, nextDirs, nextMasks] = [nextDirs, nextMasks, [], []];
    }
    return walks.map((w) => ({ hidden: w.hidden, entries: w.entries, complete: w.complete }));
  }

  /** Forgets every cached listing (tests, or after a huge tree was scanned once). */
  clear(): void {
    this.listings.clear();
  }
}
