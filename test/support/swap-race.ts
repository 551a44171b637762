// What an agent with Bash can do to the host's file checks: swap a directory for a symlink (once,
// or over and over from another process, racing the host), and build a directory whose real path
// is longer than PATH_MAX (readlink of a descriptor opened there fails with ENAMETOOLONG).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const SWAPPER = new URL('./swapper.mjs', import.meta.url);

/**
 * Makes `deep/<dirs>` under `project` with `f.txt` (content `deep\n`) in it: the returned relative
 * path is under 4096 bytes (a symlink can hold it), the directory's real path is over 4095.
 */
export function makeDeepDir(project: string): string {
  let rel = 'deep';
  while (rel.length + 101 < 3990) rel += `/${'d'.repeat(100)}`;
  rel += `/${'e'.repeat(4090 - rel.length - 1)}`;
  // One level at a time, relative to the working directory: the absolute path is too long to name.
  const cwd = process.cwd();
  try {
    process.chdir(project);
    for (const part of rel.split('/')) {
      fs.mkdirSync(part);
      process.chdir(part);
    }
    fs.writeFileSync('f.txt', 'deep\n');
  } finally {
    process.chdir(cwd);
  }
  return rel;
}

/** Swaps directory `name` of `project` for a symlink to `target` (kept as `<name>.moved`). */
export function swap(project: string, name: string, target: string): void {
  fs.renameSync(path.join(project, name), path.join(project, `${name}.moved`));
  fs.symlinkSync(target, path.join(project, name));
}

/** Undoes `swap`. */
export function unswap(project: string, name: string): void {
  fs.unlinkSync(path.join(project, name));
  fs.renameSync(path.join(project, `${name}.moved`), path.join(project, name));
}

/** A racing process: flips directories of a project between themselves and symlinks until stopped. */
export interface Swapper {
  /** Stops the process and puts every directory back. */
  stop(): Promise<void>;
}

/**
 * Starts another process that flips each `flips[name]` directory of `project` between the
 * directory and a symlink to `flips[name]`, as fast as it can (resolves once it runs).
 */
export async function startSwapper(project: string, flips: Record<string, string>): Promise<Swapper> {
  const child = spawn(process.execPath, [SWAPPER.pathname, project, JSON.stringify(flips)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the swapper exited (code ${code})`)));
  });
  return {
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      for (const name of Object.keys(flips)) {
        const real = path.join(project, `${name}.real`);
        if (fs.existsSync(real)) {
          fs.rmSync(path.join(project, name), { force: true });
          fs.renameSync(real, path.join(project, name));
        }
        fs.rmSync(path.join(project, `${name}.lnk`), { force: true });
      }
    },
  };
}
