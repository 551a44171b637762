// One directory of a walk, opened and listed so that what is listed is the directory the walk
// checked, never one an agent swapped in meanwhile. Taking a directory's type from its parent's
// listing and then listing it by path would follow a symlink put there since, and hand outside
// file names to the worker. So each directory is opened without following a final symlink, checked
// against the real path the walk expects (pin.ts: the kernel's account of the descriptor, or
// dev/ino in 'stat' mode), and listed through that descriptor. The check needs no parent
// descriptor kept open, so one directory is open at a time whatever the depth, and it is closed as
// soon as its entries are read. Also here: reading a .gitignore (inside such a directory or not),
// capped in bytes and rules: a model can write any .gitignore it likes.
import fs, { constants, type Dirent } from 'node:fs';
import { createIgnoreMatcher, type IgnoreMatcher } from '../gitignore.js';
import { checkOpenedSync, fdLink, openCheck, underFd, type OpenCheck } from './pin.js';
import type { WalkLimits } from './walk-limits.js';

/** A directory opened for the walk and checked to be the real path it expects. */
export interface OpenedDir {
  fd: number;
  real: string;
  /** How it was checked, and how what is opened in it is (pin.ts). */
  mode: OpenCheck;
}

/** Bytes of one ignore file read at most; the rest is left out (with a notice). */
const MAX_IGNORE_BYTES = 1 << 20;
/** Rules of one ignore file used at most; the rest are left out (with a notice). */
const MAX_IGNORE_RULES = 10_000;

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // The descriptor is gone either way.
  }
}

/**
 * Opens directory `real` (a real path the walk reached through checked directories) and checks
 * that it is that directory: undefined when it is gone, unreadable, or was swapped for a symlink or
 * moved since. The caller closes it (`closeDir`).
 */
export function openDirChecked(real: string, mode: OpenCheck = openCheck()): OpenedDir | undefined {
  let fd: number;
  try {
    fd = fs.openSync(real, DIR_FLAGS);
  } catch {
    return undefined;
  }
  if (!checkOpenedSync(fd, real, mode).ok) {
    closeQuietly(fd);
    return undefined;
  }
  return { fd, real, mode };
}

/** Closes a directory `openDirChecked` opened. */
export function closeDir(dir: OpenedDir): void {
  closeQuietly(dir.fd);
}

/**
 * The entries of an opened directory: read through its descriptor ('proc' mode); in 'stat' mode by
 * path, checked again afterwards (empty when the path no longer leads to the directory opened).
 */
export function listDir(dir: OpenedDir): Dirent[] {
  try {
    if (dir.mode === 'proc') return fs.readdirSync(fdLink(dir.fd), { withFileTypes: true });
    const entries = fs.readdirSync(dir.real, { withFileTypes: true });
    return checkOpenedSync(dir.fd, dir.real, dir.mode).ok ? entries : [];
  } catch {
    return [];
  }
}

/** The path of entry `name` of an opened directory, for stat, realpath and open. */
export function entryPath(dir: OpenedDir, name: string): string {
  return underFd(dir.fd, dir.real, name, dir.mode);
}

/** An ignore file's text, and whether it was longer than `MAX_IGNORE_BYTES` (then cut at a line end). */
interface IgnoreText {
  text: string;
  cut: boolean;
}

/**
 * Reads the ignore file at `file` if it is a regular file: never a symlink, never a FIFO (which would
 * park the thread), at most `MAX_IGNORE_BYTES` (a sparse 100 MB .gitignore costs nothing to make).
 */
function readIgnoreFile(file: string): IgnoreText | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, FILE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return undefined;
    // One byte past the size (or the cap): a file that grew since fstat is read to the cap at most.
    const buffer = Buffer.allocUnsafe(Math.min(st.size, MAX_IGNORE_BYTES) + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) break;
    }
    if (length <= MAX_IGNORE_BYTES) return { text: buffer.toString('utf8', 0, length), cut: false };
    // Cut at the last whole line: half a rule could mean something else.
    const end = buffer.lastIndexOf(10, MAX_IGNORE_BYTES - 1);
    return { text: buffer.toString('utf8', 0, Math.max(0, end)), cut: true };
  } catch {
    return undefined;
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Parses the ignore file at `file` (a path through an opened directory, or a plain one; shown to the
 * model as `label`) with its rules relative to `base`, at most MAX_IGNORE_BYTES and
 * MAX_IGNORE_RULES of it (with a notice for the rest). Parsing counts toward the walk's work.
 */
export function loadIgnore(
  file: string,
  base: string,
  label: string,
  limits: WalkLimits,
): IgnoreMatcher | undefined {
  const read = readIgnoreFile(file);
  if (!read) return undefined;
  const matcher = createIgnoreMatcher(read.text, base, MAX_IGNORE_RULES);
  limits.scanned += matcher.rules.length + matcher.dropped;
  if (read.cut) limits.notice(`${label} is over ${MAX_IGNORE_BYTES} bytes; only its start was used`);
  if (matcher.dropped > 0)
    limits.notice(`${label} has over ${MAX_IGNORE_RULES} rules; ${matcher.dropped} of them were not used`);
  return matcher;
}
