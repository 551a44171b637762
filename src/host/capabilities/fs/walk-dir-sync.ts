// One directory of a walk, opened and listed so that what is listed is the directory the walk
// checked, never one an agent swapped in meanwhile. Taking a directory's type from its parent's
// listing and then listing it by path would follow a symlink put there since, and hand outside
// file names to the worker. So each directory is opened without following a final symlink, checked
// against the real path the walk expects (pin.ts: the kernel's account of the descriptor, or
// dev/ino in 'stat' mode), and listed through that descriptor. The check needs no parent
// descriptor kept open, so one directory is open at a time whatever the depth, and it is closed as
// soon as its entries are read. Also here: reading a .gitignore inside such a directory.
import fs, { constants, type Dirent } from 'node:fs';
import { checkOpenedSync, fdLink, openCheck, underFd } from './pin.js';

/** A directory opened for the walk and checked to be the real path it expects. */
export interface OpenedDir {
  fd: number;
  real: string;
}

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
export function openDirChecked(real: string): OpenedDir | undefined {
  let fd: number;
  try {
    fd = fs.openSync(real, DIR_FLAGS);
  } catch {
    return undefined;
  }
  if (!checkOpenedSync(fd, real).ok) {
    closeQuietly(fd);
    return undefined;
  }
  return { fd, real };
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
    if (openCheck() === 'proc') return fs.readdirSync(fdLink(dir.fd), { withFileTypes: true });
    const entries = fs.readdirSync(dir.real, { withFileTypes: true });
    return checkOpenedSync(dir.fd, dir.real).ok ? entries : [];
  } catch {
    return [];
  }
}

/** The path of entry `name` of an opened directory, for stat, realpath and open. */
export function entryPath(dir: OpenedDir, name: string): string {
  return underFd(dir.fd, dir.real, name);
}

/**
 * Reads the ignore file at `file` (a path through an opened directory, or a plain one) if it is a
 * regular file: never a symlink, never a FIFO (which would park the thread).
 */
export function readIgnoreFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, FILE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    closeQuietly(fd);
  }
}
