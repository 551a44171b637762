// The body of a batch read, with synchronous calls, on the host's I/O thread (never on the host's
// event loop): a few syscalls in a row cost microseconds, where trips through libuv's pool cost
// tens. Each directory is opened once and checked once (pin.ts), and its files are opened through
// that descriptor without following a final symlink: a directory or file swapped for a symlink
// after the permission check is never followed. (Without /proc, pin.ts's 'stat' mode, each file is
// opened by path and checked itself.) A check that fails refuses that directory's files only. Contents are packed into one byte buffer, so
// 20,000 files cross the thread boundary as one object instead of 20,000.
import fs, { constants } from 'node:fs';
import { fsError } from './errors.js';
import {
  checkOpenedSync,
  openCheck,
  refusedMessage,
  swappedForLinkMessage,
  underFd,
  type OpenCheck,
} from './pin.js';
import { looksBinary } from './read.js';
import { SNIFF_BYTES } from './sniff.js';

/** What a batch read gave: the files read (packed) and the ones skipped, by index in the batch. */
export interface PackedBatch {
  /** Index of each file read, ascending. */
  read: number[];
  /** Where file `k` ends in `bytes`; it starts where file `k - 1` ends (0 for the first). */
  ends: number[];
  mtimes: number[];
  /** UTF-8 contents of the files read, back to back, in a buffer of their own (safe to transfer). */
  bytes: Uint8Array;
  skipped: { index: number; reason: string }[];
  /** Paths handled: a prefix of the batch; the byte budget left the rest for a later call. */
  handled: number;
}

/** A scratch buffer files are read into, kept between batches while it stays small. */
let slab = new Uint8Array(1 << 20);
const SLAB_KEPT_BYTES = 4 << 20;
/** Directory descriptors open at once during a batch. */
const OPEN_DIRS = 16;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

function reserve(used: number, more: number): void {
  if (used + more <= slab.length) return;
  let size = slab.length * 2;
  while (size < used + more) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(slab.subarray(0, used));
  slab = grown;
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // EIO on a network mount: the descriptor is gone either way, and the outcome stands.
  }
}

/**
 * A directory of the batch: the prefix its files are opened under (through its checked descriptor;
 * by plain path in 'stat' mode, where each file is checked itself), or why none of its files is read.
 */
type DirHandle =
  { fd: number; prefix: string; checkEach: boolean } | { refuse: (real: string, name: string) => string };

/** Opens directory `dir` (a checked real path) and checks that what was opened is that directory. */
function openDir(dir: string, mode: OpenCheck): DirHandle {
  if (mode === 'stat') return { fd: -1, prefix: dir === '/' ? '/' : `${dir}/`, checkEach: true };
  let fd: number;
  try {
    fd = fs.openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NONBLOCK);
  } catch (error) {
    return { refuse: (real) => fsError(error, real).message };
  }
  const check = checkOpenedSync(fd, dir, mode);
  if (!check.ok) {
    closeQuietly(fd);
    return { refuse: (_real, name) => refusedMessage(dir, check, name) };
  }
  return { fd, prefix: underFd(fd, dir, '', mode), checkEach: false };
}

/** The directories open during one batch: a few at once, the oldest closed first. */
class OpenDirs {
  private readonly dirs = new Map<string, DirHandle>();

  /** `mode`: how what is opened is checked (pin.ts). */
  constructor(readonly mode: OpenCheck) {}

  get(dir: string): DirHandle {
    let handle = this.dirs.get(dir);
    if (handle === undefined) {
      if (this.dirs.size >= OPEN_DIRS) {
        const [oldest, old] = this.dirs.entries().next().value as [string, DirHandle];
        this.dirs.delete(oldest);
        if ('fd' in old && old.fd >= 0) closeQuietly(old.fd);
      }
      handle = openDir(dir, this.mode);
      this.dirs.set(dir, handle);
    }
    return handle;
  }

  closeAll(): void {
    for (const handle of this.dirs.values()) if ('fd' in handle && handle.fd >= 0) closeQuietly(handle.fd);
    this.dirs.clear();
  }
}

/**
 * Judges a file by what it begins with (its first bytes): the reason it is refused, or undefined.
 * `index` is the file's place in the batch.
 */
export type HeadJudge = (index: number, head: Uint8Array) => string | undefined;

/** Reads an opened file into the slab at `used`: its byte count and mtime, or why it is skipped. */
function readOpened(
  fd: number,
  used: number,
  maxBytes: number,
  judge: ((head: Uint8Array) => string | undefined) | undefined,
): { bytes: number; mtimeMs: number } | { reason: string } {
  const st = fs.fstatSync(fd);
  if (st.isDirectory()) return { reason: 'a directory' };
  if (!st.isFile()) return { reason: 'not a regular file' };
  if (st.size > maxBytes) return { reason: `too large (${st.size} bytes, cap ${maxBytes})` };
  // One byte more than the size says: a file that grew past the cap since fstat is caught.
  const want = Math.min(st.size, maxBytes) + 1;
  reserve(used, want);
  const bytes = fs.readSync(fd, slab, used, want, 0);
  if (bytes > maxBytes) return { reason: `too large (more than ${maxBytes} bytes)` };
  if (bytes > st.size) return { reason: 'changed while being read' };
  if (looksBinary(slab.subarray(used, used + bytes))) return { reason: 'binary' };
  const refused = judge?.(slab.subarray(used, used + Math.min(bytes, SNIFF_BYTES)));
  if (refused !== undefined) return { reason: refused };
  return { bytes, mtimeMs: st.mtimeMs };
}

/** Reads one file through its directory's handle; never throws. */
function readOne(
  dirs: OpenDirs,
  real: string,
  used: number,
  maxBytes: number,
  judge: ((head: Uint8Array) => string | undefined) | undefined,
): { bytes: number; mtimeMs: number } | { reason: string } {
  const slash = real.lastIndexOf('/');
  const dir = slash <= 0 ? '/' : real.slice(0, slash);
  const name = real.slice(slash + 1);
  const handle = dirs.get(dir);
  if ('refuse' in handle) return { reason: handle.refuse(real, name) };
  let fd: number;
  try {
    fd = fs.openSync(handle.prefix + name, FILE_FLAGS);
  } catch (error) {
    // The checked path ends in a file, never in a symlink: one there now was swapped in since.
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { reason: swappedForLinkMessage(real) };
    return { reason: fsError(error, real).message };
  }
  try {
    if (handle.checkEach) {
      const check = checkOpenedSync(fd, real, dirs.mode);
      if (!check.ok) return { reason: refusedMessage(real, check) };
    }
    return readOpened(fd, used, maxBytes, judge);
  } catch (error) {
    return { reason: fsError(error, real).message };
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Reads `reals` (checked real paths) whole, in order, until `budget` bytes of content are read (at
 * least one file is): `handled` says how many; the caller defers the rest. Never throws for one
 * file: binary, oversized, missing or unreadable files, and those `judge` refuses by what they
 * begin with, are skipped with the reason. `mode` is how opened files are checked (pin.ts).
 */
export function readBatchSync(
  reals: readonly string[],
  maxBytes: number,
  budget: number,
  judge?: HeadJudge,
  mode: OpenCheck = openCheck(),
): PackedBatch {
  const batch: PackedBatch = {
    read: [],
    ends: [],
    mtimes: [],
    bytes: new Uint8Array(0),
    skipped: [],
    handled: 0,
  };
  const dirs = new OpenDirs(mode);
  let used = 0;
  try {
    for (let i = 0; i < reals.length; i++) {
      if (i > 0 && used >= budget) break;
      const outcome = readOne(dirs, reals[i] ?? '', used, maxBytes, judge && ((head) => judge(i, head)));
      if ('reason' in outcome) batch.skipped.push({ index: i, reason: outcome.reason });
      else {
        used += outcome.bytes;
        batch.read.push(i);
        batch.ends.push(used);
        batch.mtimes.push(outcome.mtimeMs);
      }
      batch.handled = i + 1;
    }
  } finally {
    dirs.closeAll();
  }
  batch.bytes = slab.slice(0, used);
  if (slab.length > SLAB_KEPT_BYTES) slab = new Uint8Array(1 << 20);
  return batch;
}
