// Finds what the sandbox must hide inside a directory tree it makes visible (the project, extra
// readable directories): secrets, sockets, paths named by deny rules. Listings are cached per
// directory and reused while the directory's change time (ctime, which no process can set back) is
// unchanged, so a command in a project already scanned costs one stat per directory.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** What kind of entry a listing holds (symbolic links are never followed). */
export type EntryType = 'dir' | 'file' | 'socket' | 'symlink' | 'other';

/** The verdict on one entry: hide it, walk into it (directories), or leave it visible. */
export type ScanVerdict = 'hide' | 'descend' | 'keep';

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

interface Listing {
  ctime: bigint;
  entries: readonly (readonly [string, EntryType])[];
}

function typeOf(d: Dirent): EntryType {
  if (d.isDirectory()) return 'dir';
  if (d.isFile()) return 'file';
  if (d.isSocket()) return 'socket';
  if (d.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** Default cap on entries per scan: past it the scan is incomplete, and callers fail closed. */
export const SCAN_ENTRY_CAP = 300_000;
/** Directories listed or checked at once. */
const PARALLEL = 32;

/** Directory listings cached by change time; one per process is enough. */
export class TreeScanner {
  private readonly listings = new Map<string, Listing>();

  /** The entries of `dir`, from the cache when its ctime is unchanged; `gone` or `unreadable` otherwise. */
  private async list(dir: string): Promise<Listing | 'gone' | 'unreadable'> {
    const st = await stat(dir, { bigint: true }).catch(() => undefined);
    if (st === undefined || !st.isDirectory()) {
      this.listings.delete(dir);
      return 'gone';
    }
    const cached = this.listings.get(dir);
    if (cached !== undefined && cached.ctime === st.ctimeNs) return cached;
    const dirents = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
    if (dirents === undefined) return 'unreadable';
    const listing: Listing = { ctime: st.ctimeNs, entries: dirents.map((d) => [d.name, typeOf(d)] as const) };
    // Another stat after listing: a change during readdir leaves a ctime that will not match.
    const after = await stat(dir, { bigint: true }).catch(() => undefined);
    if (after?.ctimeNs === st.ctimeNs) this.listings.set(dir, listing);
    else this.listings.delete(dir);
    return listing;
  }

  /**
   * Walks `root` (itself never hidden) breadth-first, asking `judge` about every entry. A directory
   * that exists but cannot be listed is reported hidden: what cannot be checked is not shown. One
   * that vanished during the walk is skipped.
   */
  async scan(root: string, judge: ScanJudge, cap = SCAN_ENTRY_CAP): Promise<ScanResult> {
    const hidden: HiddenEntry[] = [];
    let entries = 0;
    let queue = [root];
    while (queue.length > 0) {
      const next: string[] = [];
      for (let i = 0; i < queue.length; i += PARALLEL) {
        const batch = queue.slice(i, i + PARALLEL);
        const listings = await Promise.all(batch.map((dir) => this.list(dir)));
        for (const [j, listing] of listings.entries()) {
          const dir = batch[j] as string;
          if (listing === 'gone') continue;
          if (listing === 'unreadable') {
            if (dir !== root) hidden.push({ path: dir, dir: true });
            continue;
          }
          for (const [name, type] of listing.entries) {
            if (++entries > cap) return { hidden, entries, complete: false };
            const abs = path.join(dir, name);
            const verdict = judge(abs, type);
            if (verdict === 'hide') hidden.push({ path: abs, dir: type === 'dir' });
            else if (verdict === 'descend' && type === 'dir') next.push(abs);
          }
        }
      }
      queue = next;
    }
    return { hidden, entries, complete: true };
  }

  /** Forgets every cached listing (tests, or after a huge tree was scanned once). */
  clear(): void {
    this.listings.clear();
  }
}
