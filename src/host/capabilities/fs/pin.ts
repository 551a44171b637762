// Closes the window between checking a path and using it. The policy judges a real path; by the
// time the host opens it, an agent with Bash could have swapped a directory on it for a symlink.
// So the host checks what it actually opened, and a check that cannot be made is a refusal: no
// failure, of one call or of many, ever turns the check off.
//
// How it checks is decided once per thread, when this module loads (see `OpenCheck`); each
// function takes the mode as a parameter that defaults to that decision, so the 'stat' fallback is
// tested on Linux by passing it:
// - 'proc' (Linux): the kernel says what a descriptor refers to (readlink /proc/<pid>/fd/N), and it
//   must be the checked real path. Files are then opened through their directory's checked
//   descriptor (`underFd`), so no later swap of any directory on the path can redirect them. This
//   closes the window.
// - 'stat' (no /proc, e.g. macOS): after opening by path, the descriptor's device and inode must be
//   those the checked real path names, and that path must still be its own real path (no symlink on
//   it), before and after. A swap in place while we check is caught; an attacker who flips a
//   directory back and forth between our open and our checks can still win a narrow window. Node has
//   no race-free way (openat, F_GETPATH) without /proc; this mode narrows the window, it does not
//   close it.
import fs from 'node:fs';
import { readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
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
    // No /proc: the probe below finds out.
  }
  return '/proc/self/fd';
}

/** How this thread checks what it opened (see the file's header): decided once, at load. */
export type OpenCheck = 'proc' | 'stat';

/** Whether descriptor links work here: `/`, opened, must read back as `/`. */
function probe(): OpenCheck {
  let fd: number;
  try {
    fd = fs.openSync('/', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  } catch {
    return 'stat';
  }
  try {
    return fs.readlinkSync(`${FD_DIR}/${fd}`) === '/' ? 'proc' : 'stat';
  } catch {
    return 'stat';
  } finally {
    fs.closeSync(fd);
  }
}

const PROBED: OpenCheck = probe();

/** How this thread checks what it opened, as probed at load. */
export function openCheck(): OpenCheck {
  return PROBED;
}

/** What checking an opened descriptor found: it is the checked path, or why it is refused. */
export type OpenedCheck =
  | { ok: true }
  | { ok: false; /** where the descriptor really leads */ leadsTo: string }
  | { ok: false; /** why it could not be confirmed (an errno code, or what differed) */ unconfirmed: string };

/** Why a path that changed under the check is refused. */
function racedMessage(expected: string, opened: string): string {
  return `${expected} changed between the permission check and the open (it now leads to ${opened}); refused`;
}

/** Why a checked file that is now a symlink (opened with O_NOFOLLOW) is refused. */
export function swappedForLinkMessage(expected: string): string {
  return `${expected} changed between the permission check and the open (it is now a symbolic link); refused`;
}

/**
 * Why `expected` (or `name` inside it, for the files of a refused directory) is refused after a
 * failed check.
 */
export function refusedMessage(
  expected: string,
  check: Exclude<OpenedCheck, { ok: true }>,
  name?: string,
): string {
  const target = name === undefined ? expected : path.posix.join(expected, name);
  if ('leadsTo' in check)
    return racedMessage(target, name === undefined ? check.leadsTo : path.posix.join(check.leadsTo, name));
  return `${target} could not be confirmed to be what the permission check allowed (${check.unconfirmed}); refused`;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | null)?.code ?? String(error);
}

function sameFile(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** The 'stat' mode check, synchronously (see the file's header for what it guarantees). */
function checkByStatSync(fd: number, expected: string): OpenedCheck {
  try {
    const opened = fs.fstatSync(fd, { bigint: true });
    const before = fs.realpathSync.native(expected);
    if (before !== expected) return { ok: false, leadsTo: before };
    if (!sameFile(opened, fs.statSync(expected, { bigint: true })))
      return { ok: false, unconfirmed: 'it is no longer the file that was opened' };
    const after = fs.realpathSync.native(expected);
    return after === expected ? { ok: true } : { ok: false, leadsTo: after };
  } catch (error) {
    return { ok: false, unconfirmed: codeOf(error) };
  }
}

const fstatAsync = promisify(fs.fstat) as (fd: number, options: { bigint: true }) => Promise<fs.BigIntStats>;

/** The 'stat' mode check, asynchronously, for the host's event loop (see the file's header). */
async function checkByStat(fd: number, expected: string): Promise<OpenedCheck> {
  try {
    const opened = await fstatAsync(fd, { bigint: true });
    const before = await realpath(expected);
    if (before !== expected) return { ok: false, leadsTo: before };
    if (!sameFile(opened, await stat(expected, { bigint: true })))
      return { ok: false, unconfirmed: 'it is no longer the file that was opened' };
    const after = await realpath(expected);
    return after === expected ? { ok: true } : { ok: false, leadsTo: after };
  } catch (error) {
    return { ok: false, unconfirmed: codeOf(error) };
  }
}

/**
 * Whether descriptor `fd` is the checked real path `expected`, synchronously (the host's I/O
 * thread). In 'proc' mode a readlink that fails (ENAMETOOLONG past PATH_MAX, a vanished directory)
 * refuses this descriptor only.
 */
export function checkOpenedSync(fd: number, expected: string, mode: OpenCheck = PROBED): OpenedCheck {
  if (mode === 'stat') return checkByStatSync(fd, expected);
  let opened: string;
  try {
    opened = fs.readlinkSync(`${FD_DIR}/${fd}`);
  } catch (error) {
    return { ok: false, unconfirmed: codeOf(error) };
  }
  return opened === expected ? { ok: true } : { ok: false, leadsTo: opened };
}

/** As `checkOpenedSync`, asynchronously, for the host's event loop. */
async function checkOpened(fd: number, expected: string, mode: OpenCheck): Promise<OpenedCheck> {
  if (mode === 'stat') return checkByStat(fd, expected);
  let opened: string;
  try {
    opened = await readlink(`${FD_DIR}/${fd}`);
  } catch (error) {
    return { ok: false, unconfirmed: codeOf(error) };
  }
  return opened === expected ? { ok: true } : { ok: false, leadsTo: opened };
}

/** Throws `permission_denied` unless descriptor `fd` is the checked real path `expected`. */
export async function assertOpened(fd: number, expected: string, mode: OpenCheck = PROBED): Promise<void> {
  const check = await checkOpened(fd, expected, mode);
  if (!check.ok)
    throw new CadreError('permission_denied', refusedMessage(expected, check), { path: expected });
}

/**
 * A path inside an opened directory. In 'proc' mode operations on it go through the descriptor, so
 * swapping the directory afterwards changes nothing; in 'stat' mode it is the plain path, and what
 * is opened through it must be checked itself (`checkOpened`).
 */
export function underFd(fd: number, dir: string, name: string, mode: OpenCheck = PROBED): string {
  if (mode === 'stat') return dir === '/' ? `/${name}` : `${dir}/${name}`;
  return `${FD_DIR}/${fd}/${name}`;
}

/** The path of descriptor `fd` itself under /proc ('proc' mode only): opening it reopens what `fd` is. */
export function fdLink(fd: number): string {
  return `${FD_DIR}/${fd}`;
}
