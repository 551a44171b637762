// Closes the window between checking a path and using it. The policy judges a real path; by the
// time the host opens it, an agent with Bash could have swapped a directory on it for a symlink.
// So the host checks what it actually opened: the descriptor's own path under /proc/self/fd.
import fs from 'node:fs';
import { readlink } from 'node:fs/promises';
import { CadreError } from '../../../shared/errors.js';

const FD_DIR = '/proc/self/fd';
let procAvailable: boolean | undefined;

function raced(expected: string, opened: string): CadreError {
  return new CadreError(
    'permission_denied',
    `${expected} changed between the permission check and the open (it now leads to ${opened}); refused`,
    { path: expected },
  );
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

/** The callback form of `assertOpened`, for the batch reader. */
export function checkOpened(
  fd: number,
  expected: string,
  done: (error: CadreError | undefined) => void,
): void {
  if (procAvailable === false) return done(undefined);
  fs.readlink(`${FD_DIR}/${fd}`, (error, opened) => {
    if (error) {
      procAvailable = false;
      return done(undefined);
    }
    procAvailable = true;
    done(opened === expected ? undefined : raced(expected, opened));
  });
}

/**
 * A path inside an opened directory: operations on it go through the descriptor, so swapping the
 * directory afterwards changes nothing. Falls back to the plain path where /proc is missing.
 */
export function underFd(fd: number, dir: string, name: string): string {
  return procAvailable === false ? `${dir}/${name}` : `${FD_DIR}/${fd}/${name}`;
}
