// Runs the compiled `cadre` binary as a user would, in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
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

/** Starts `cadre ...args` (as `user`, when given); `done` resolves when it exits. */
export function startCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  user?: CliUser,
): { child: ChildProcess; done: Promise<CliResult> } {
  const argv = [process.execPath, CLI, ...args];
  const [file, ...rest] =
    user === undefined
      ? argv
      : ['/usr/bin/setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', ...argv];
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
