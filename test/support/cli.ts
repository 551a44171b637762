// Runs the compiled `cadre` binary as a user would, in a child process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The compiled CLI entry. */
export const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'dist',
  'host',
  'cli',
  'cadre.mjs',
);

/** What a finished CLI run printed. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A user to run the CLI as (tests run as root in CI; `setpriv` drops to this user first). */
export interface CliUser {
  uid: number;
  gid: number;
}

/** The checkout (the directory holding dist/). */
const REPO = path.resolve(CLI, '..', '..', '..', '..');

/**
 * How to start node running the CLI as `user`. A checkout under a directory the user cannot enter
 * (a CI clone in /root) is bind-mounted, in a mount namespace of the launch's own, at a path the
 * user can reach; so is the node binary's directory, when it is outside the checkout too.
 */
function asUser(user: CliUser, args: readonly string[]): string[] {
  const drop = ['/usr/bin/setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups'];
  const reach = (file: string, flag: string) =>
    spawnSync(drop[0] as string, [...drop.slice(1), 'test', flag, file]).status === 0;
  if (process.env.CADRE_TEST_REBIND !== '1' && reach(CLI, '-r') && reach(process.execPath, '-x'))
    return [...drop, process.execPath, CLI, ...args];
  const mount = path.join(os.tmpdir(), `cadre-test-checkout-${process.pid}`);
  const repo = path.join(mount, 'repo');
  const nodeDir = path.join(mount, 'node');
  mkdirSync(repo, { recursive: true, mode: 0o755 });
  mkdirSync(nodeDir, { recursive: true, mode: 0o755 });
  const inRepo = !path.relative(REPO, process.execPath).startsWith('..');
  const node = inRepo
    ? path.join(repo, path.relative(REPO, process.execPath))
    : path.join(nodeDir, path.basename(process.execPath));
  const script = 'mount --bind "$1" "$2" && mount --bind "$3" "$4" && shift 4 && exec "$@"';
  return [
    '/usr/bin/unshare',
    '--mount',
    '--propagation',
    'private',
    '/bin/sh',
    '-c',
    script,
    'sh',
    REPO,
    repo,
    path.dirname(process.execPath),
    nodeDir,
    ...drop,
    node,
    path.join(repo, path.relative(REPO, CLI)),
    ...args,
  ];
}

/** Starts `cadre ...args` (as `user`, when given); `done` resolves when it exits. */
export function startCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  user?: CliUser,
): { child: ChildProcess; done: Promise<CliResult> } {
  const [file, ...rest] = user === undefined ? [process.execPath, CLI, ...args] : asUser(user, args);
  const child = spawn(file as string, rest, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Runs `cadre ...args` to its end (as `user`, when given). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  user?: CliUser,
): Promise<CliResult> {
  return startCli(args, env, cwd, user).done;
}
