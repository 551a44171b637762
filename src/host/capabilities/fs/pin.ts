// Closes the window between checking a path and using it. The policy judges a real path; by the
// time the host opens it, an agent with Bash could have swapped a directory on it for a symlink.
// So the host checks what it actually opened: the descriptor's own path under /proc/self/fd.
import fs from 'node:fs';
import { readlink } from 'node:fs/promises';
import { CadreError } from '../../../shared/errors.js';

/**
 * The process's descriptors: /proc/<pid>/fd when /proc/self is this process (it is, unless /proc
 * belongs to another pid namespace), which spares the kernel the /proc/self link on every open
 * made through a descriptor (Grep opens thousands).
 */
const FD_DIR = descriptorDir();

function descriptorDir(): string {
  try {
    if (fs.readlinkSync('/proc/self') === String(process.pid)) return `/proc/${process.pid}/fd`;
  } catch {
    // No /proc: the checks below find out and stand down.
  }
  return '/proc/self/fd';
}
let procAvailable: boolean | undefined;

/** Why a path that changed under the check is refused. */
export function racedMessage(expected: string, opened: string): string {
  return `${expected} changed between the permission check and the open (it now leads to ${opened}); refused`;
}

/** Why a checked file that is now a symlink (opened with O_NOFOLLOW) is refused. */
export function swappedForLinkMessage(expected: string): string {
  return `${expected} changed between the permission check and the open (it is now a symbolic link); refused`;
}

function raced(expected: string, opened: string): CadreError {
  return new CadreError('permission_denied', racedMessage(expected, opened), { path: expected });
}

/** The synchronous form of the descriptor's path, for the host's I/O thread. */
export function openedPathSync(fd: number): string | undefined {
  if (procAvailable === false) return undefined;
  try {
    const target = fs.readlinkSync(`${FD_DIR}/${fd}`);
    procAvailable = true;
    return target;
  } catch {
    procAvailable = false;
    return undefined;
  }
}

/** The path a descriptor really refers to, or undefined where /proc is not available. */
async function fdPath(fd: number): Promise<string | undefined> {
  if (procAvailable === false) return undefined;
  try {
    const target = await readlink(`${FD_DIR}/${fd}`);
    procAvailable = true;
    return target;
  } catch {
    procAvailable = false;
    return undefined;
  }
}

/** Throws `permission_denied` unless descriptor `fd` is the checked real path `expected`. */
export async function assertOpened(fd: number, expected: string): Promise<void> {
  const opened = await fdPath(fd);
  if (opened !== undefined && opened !== expected) throw raced(expected, opened);
}

/**
 * A path inside an opened directory: operations on it go through the descriptor, so swapping the
 * directory afterwards changes nothing. Falls back to the plain path where /proc is missing.
 */
export function underFd(fd: number, dir: string, name: string): string {
  return procAvailable === false ? `${dir}/${name}` : `${FD_DIR}/${fd}/${name}`;
}
