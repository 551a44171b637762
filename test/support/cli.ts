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

/** Starts `cadre ...args`; `done` resolves when it exits. */
export function startCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], {
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

/** Runs `cadre ...args` to its end. */
export function runCli(args: string[], env: Record<string, string>, cwd: string): Promise<CliResult> {
  return startCli(args, env, cwd).done;
}
