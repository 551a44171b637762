// Runs the compiled `cadre` binary as a user would, in a child process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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

/** Node flags that run TypeScript from source (tsx's loader, by absolute URL: cwd may be anywhere). */
export const NODE_TSX = ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];

/** The test-only `cadre`, run from source, whose agents fail on purpose for `fault:<kind>` prompts. */
const FAULT_CLI = fileURLToPath(new URL('./faults/fault-cli.ts', import.meta.url));

/** Node flags that make `cadre` print its own peak RSS and CPU time at exit (report-resources.mjs). */
export const REPORT_RESOURCES = ['--import', new URL('./report-resources.mjs', import.meta.url).href];

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
  return spawnCli(user === undefined ? [process.execPath, CLI, ...args] : asUser(user, args), env, cwd);
}

/** Runs the test-only `cadre` (faults/fault-cli.ts) to its end: `fault:<kind>` prompts fail. */
export function runFaultCli(args: string[], env: Record<string, string>, cwd: string): Promise<CliResult> {
  return spawnCli([process.execPath, ...NODE_TSX, FAULT_CLI, ...args], env, cwd).done;
}

/** Runs `cadre ...args` to its end, with its peak RSS and CPU time printed at exit (REPORT_RESOURCES). */
export function runCliReporting(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<CliResult> {
  return spawnCli([process.execPath, ...REPORT_RESOURCES, CLI, ...args], env, cwd).done;
}

function spawnCli(
  [file, ...rest]: string[],
  env: Record<string, string>,
  cwd: string,
): { child: ChildProcess; done: Promise<CliResult> } {
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
