// The sandbox's private directory on the host, one per process: an empty directory and an empty
// file mounted over what is hidden, the set-ID filter's file for bwrap, and for the unshare backend
// the skeleton its root file system is built on. Only this process's user can enter it (mode
// 0700); it is removed when the process exits.
import { rmSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The private directory's layout. */
export interface Workspace {
  dir: string;
  /** Empty and read-only: what a hidden directory shows. */
  emptyDir: string;
  /** Empty and read-only: what a hidden file (or socket) shows. */
  emptyFile: string;
  /** The unshare backend's root skeleton (mount points only; read-only once mounted). */
  rootDir: string;
}

/** Device nodes of the sandbox's /dev, bound from the host's. */
export const DEVICES: readonly string[] = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

async function makeSkeleton(rootDir: string): Promise<void> {
  await mkdir(path.join(rootDir, 'dev', 'shm'), { recursive: true });
  await mkdir(path.join(rootDir, 'proc'));
  await mkdir(path.join(rootDir, 'tmp'));
  for (const name of DEVICES) await writeFile(path.join(rootDir, 'dev', name), '');
  const links: [string, string][] = [
    ['fd', '/proc/self/fd'],
    ['stdin', '/proc/self/fd/0'],
    ['stdout', '/proc/self/fd/1'],
    ['stderr', '/proc/self/fd/2'],
  ];
  for (const [name, target] of links) await symlink(target, path.join(rootDir, 'dev', name));
}

let current: Promise<Workspace> | undefined;

/** Creates the workspace (uncached). */
export async function createWorkspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-sandbox-'));
  await chmod(dir, 0o700);
  const emptyDir = path.join(dir, 'empty');
  const emptyFile = path.join(dir, 'empty-file');
  const rootDir = path.join(dir, 'root');
  await mkdir(emptyDir);
  await writeFile(emptyFile, '', { mode: 0o444 });
  await mkdir(rootDir, { mode: 0o755 });
  await makeSkeleton(rootDir);
  await chmod(emptyDir, 0o555);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { dir, emptyDir, emptyFile, rootDir };
}

/** The process's workspace, created on first use. */
export function workspace(): Promise<Workspace> {
  current ??= createWorkspace().catch((error: unknown) => {
    current = undefined;
    throw error;
  });
  return current;
}

/** Removes a workspace now (tests that make their own). */
export async function removeWorkspace(ws: Workspace): Promise<void> {
  await chmod(ws.emptyDir, 0o755).catch(() => undefined);
  await rm(ws.dir, { recursive: true, force: true });
}
