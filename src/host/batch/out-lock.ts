// One batch per results file: `cadre batch` holds `<out>.lock` (created exclusively, holding its pid)
// for as long as it runs. A second batch on the same file refuses, naming the holder. A lock left
// by a batch that died (its pid gone, or now some other program) is taken over.
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import os from 'node:os';
import { CadreError } from '../../shared/errors.js';

/** What a lock file says about its holder. */
interface LockInfo {
  pid: number;
  host: string;
  startedAt: number;
}

/** A held lock. */
export interface OutLock {
  readonly path: string;
  /** Removes the lock file, if it is still this process's. Idempotent. */
  release(): Promise<void>;
}

/** The lock file of a results file. */
function lockPathOf(outPath: string): string {
  return `${outPath}.lock`;
}

function parseInfo(text: string): LockInfo | undefined {
  try {
    const info = JSON.parse(text) as Partial<LockInfo>;
    if (typeof info.pid === 'number' && Number.isInteger(info.pid) && info.pid > 0)
      return { pid: info.pid, host: String(info.host ?? ''), startedAt: Number(info.startedAt ?? 0) };
  } catch {
    // Unreadable: treated as stale below.
  }
  return undefined;
}

/**
 * Whether `info` may name a live cadre batch. A pid reused by another program (after a reboot or
 * in a fresh container) does not count: on Linux its command line must be cadre's. A lock taken
 * on another machine (a shared file system) cannot be checked, so it counts as held.
 */
function holderAlive(info: LockInfo): boolean {
  if (info.host !== os.hostname()) return true;
  if (info.pid === process.pid) return false;
  try {
    process.kill(info.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').includes('cadre');
  } catch {
    // No /proc (macOS): a live pid is taken at its word.
    return process.platform !== 'linux';
  }
}

async function create(lockPath: string, info: LockInfo): Promise<boolean> {
  try {
    const handle = await open(lockPath, 'wx');
    try {
      await handle.writeFile(`${JSON.stringify(info)}\n`);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new CadreError(
      'io_error',
      `cannot create the lock ${lockPath} beside the results file: ${(error as Error).message}`,
    );
  }
}

/** Takes the lock of `outPath`, or throws `limit_reached` naming the batch that holds it. */
export async function lockResults(outPath: string): Promise<OutLock> {
  const lockPath = lockPathOf(outPath);
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), startedAt: Date.now() };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await create(lockPath, mine)) return heldLock(lockPath);
    const holder = parseInfo(await readFile(lockPath, 'utf8').catch(() => ''));
    if (holder && holderAlive(holder)) {
      throw new CadreError(
        'limit_reached',
        `${outPath} is in use by another cadre batch (pid ${holder.pid}${holder.host === os.hostname() ? '' : ` on ${holder.host}`}, started ${new Date(holder.startedAt).toISOString()}); ` +
          `wait for it to end or stop it, or write to another --out file. If no batch is running, remove ${lockPath}.`,
        { pid: holder.pid, lock: lockPath },
      );
    }
    // Left by a batch that is gone: take it over.
    await unlink(lockPath).catch(() => undefined);
  }
  throw new CadreError('io_error', `cannot take the lock ${lockPath}: it keeps reappearing`);
}

function heldLock(lockPath: string): OutLock {
  let released = false;
  const stillMine = () => parseInfo(readFileSafe(lockPath))?.pid === process.pid;
  // A process that exits without the normal path (a second Ctrl-C) still gives the file back.
  const onExit = () => {
    if (!released && stillMine()) {
      try {
        unlinkSync(lockPath);
      } catch {
        // Already gone.
      }
    }
  };
  process.once('exit', onExit);
  return {
    path: lockPath,
    async release() {
      if (released) return;
      released = true;
      process.off('exit', onExit);
      if (stillMine()) await unlink(lockPath).catch(() => undefined);
    },
  };
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
