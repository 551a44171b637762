// The bubblewrap sandbox for shell commands: builds its argument list and probes, once per
// process, whether it actually works here (it is often installed but refused, e.g. in Docker
// without user namespaces), so the mode in force can be reported instead of assumed.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Which isolation a command runs under. */
export type SandboxMode = 'bwrap' | 'none';

/** The outcome of probing for a working sandbox. */
export interface SandboxStatus {
  available: boolean;
  mode: SandboxMode;
  /** Human-readable: the bwrap path and version, or why there is no sandbox. */
  detail: string;
  /** The bwrap executable, when available. */
  bwrapPath?: string;
}

/** What the sandbox lets a command touch. */
export interface BwrapOptions {
  /** Bound read-write; everything else of the host is read-only. */
  projectDir: string;
  /** Working directory inside the sandbox (default `projectDir`). */
  cwd?: string;
  /** More directories bound read-write (e.g. configured extra roots). */
  extraWritable?: readonly string[];
  /** Directories replaced by an empty tmpfs, so their contents cannot be read (e.g. ~/.ssh). */
  hidden?: readonly string[];
}

/**
 * bwrap arguments (before the command) for: no network and fresh IPC/PID/UTS namespaces
 * (`--unshare-all`), killed with its parent, a new session (so it cannot inject keystrokes into
 * the host's terminal via TIOCSTI), the host's root read-only, fresh /dev and /proc, a private
 * /tmp, and only the project (plus `extraWritable`) writable. Order matters to bwrap: later
 * mounts go over earlier ones, so binds come after the tmpfs mounts they may sit inside.
 */
export function bwrapArgs(options: BwrapOptions): string[] {
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
  for (const dir of options.hidden ?? []) args.push('--tmpfs', dir);
  for (const dir of [options.projectDir, ...(options.extraWritable ?? [])]) args.push('--bind', dir, dir);
  args.push('--chdir', options.cwd ?? options.projectDir);
  return args;
}

/** The directories of `dirs` that exist: bwrap cannot mount over a missing path on a read-only root. */
export async function existingDirs(dirs: readonly string[]): Promise<string[]> {
  const checks = await Promise.all(
    dirs.map((d) =>
      stat(d).then(
        (st) => st.isDirectory(),
        () => false,
      ),
    ),
  );
  return dirs.filter((_, i) => checks[i]);
}

/** Finds an executable on PATH, as a shell would. */
async function which(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

function run(file: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { timeout: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      (error, stdout, stderr) => {
        resolve({ ok: !error, output: `${stdout}${stderr}`.trim() || (error?.message ?? '') });
      },
    );
  });
}

/** Probes without the cache: is there a bwrap, and does it run a trivial command with our flags? */
async function probe(bwrap: string | undefined): Promise<SandboxStatus> {
  const bwrapPath = bwrap ?? (await which('bwrap'));
  if (!bwrapPath) {
    return {
      available: false,
      mode: 'none',
      detail: 'bubblewrap (bwrap) is not installed; install the "bubblewrap" package',
    };
  }
  const version = await run(bwrapPath, ['--version']);
  if (!version.ok)
    return { available: false, mode: 'none', detail: `${bwrapPath} does not run: ${version.output}` };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-probe-'));
  try {
    const trial = await run(bwrapPath, [...bwrapArgs({ projectDir: dir }), 'true']);
    if (!trial.ok) {
      return {
        available: false,
        mode: 'none',
        detail: `${bwrapPath} is installed but cannot create a sandbox here (${trial.output}); containers usually need user namespaces enabled`,
      };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { available: true, mode: 'bwrap', detail: `${version.output} at ${bwrapPath}`, bwrapPath };
}

let cached: Promise<SandboxStatus> | undefined;

/**
 * Whether commands can be sandboxed here. Cached for the process; `bwrap` probes a specific
 * executable without touching the cache (tests, or a configured path), `refresh` re-probes.
 */
export function probeSandbox(options: { bwrap?: string; refresh?: boolean } = {}): Promise<SandboxStatus> {
  if (options.bwrap !== undefined) return probe(options.bwrap);
  if (!cached || options.refresh) cached = probe(undefined);
  return cached;
}
