// The one place an MCP stdio server meets the command sandbox: the same bubblewrap setup the Bash
// tool's commands get (read-only root, fresh PID namespace that takes every descendant down with
// the server, private /tmp), except that the network is kept (most servers call an API), the
// project is mounted read-only, and the server's own state directory is its writable HOME. The
// set-ID seccomp filter applies too: a server may write its state directory and the directories
// its configuration names, and no file it writes there may carry the set-user-ID bit to the host.
// `sandbox.mode` applies as for commands: `required` refuses to start a server without it.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../../shared/errors.js';
import { commandEnv } from '../exec.js';
import { probeSandbox, type SandboxStatus } from '../sandbox.js';
import { credentialsUnder } from '../sandbox/home.js';
import { setidFilter } from '../sandbox/seccomp-bpf.js';
import { SECCOMP_FD, seccompFile } from '../sandbox/seccomp-load.js';
import { workspace } from '../sandbox/workspace.js';
import type { ServerCommand } from './server-process.js';
import type { StdioTarget } from './server-spec.js';

/** What the sandbox decision needs. */
export interface ServerSandboxOptions {
  /** The configured `sandbox.mode`. */
  mode: 'auto' | 'required' | 'off';
  /** The project directory (read-only inside the sandbox). */
  projectDir: string;
  /** The server's own writable directory, its HOME. */
  stateDir: string;
  /** The user's home, HOME of a server configured with `sandbox: false`. */
  home: string;
  /** A probe result to use instead of probing. */
  status?: SandboxStatus;
}

/** The command to spawn and which isolation it runs under. */
export interface SandboxedCommand extends ServerCommand {
  sandbox: 'bwrap' | 'none';
  /** Why it runs unsandboxed, when it does. */
  note?: string;
}

/** Wraps `target` in the sandbox as configured. Rejects with `sandbox_unavailable` under `required`. */
export async function sandboxedServerCommand(
  target: StdioTarget,
  options: ServerSandboxOptions,
): Promise<SandboxedCommand> {
  const base = { CADRE_PROJECT_DIR: options.projectDir, ...target.env };
  if (target.sandbox === false || options.mode === 'off') {
    const note = target.sandbox === false ? 'sandbox: false for this server' : 'sandbox.mode is off';
    return {
      file: target.command,
      args: target.args,
      cwd: target.cwd,
      env: commandEnv(options.home, base),
      sandbox: 'none',
      note,
    };
  }
  const status = options.status ?? (await probeSandbox());
  await mkdir(options.stateDir, { recursive: true });
  const env = commandEnv(options.stateDir, base);
  if (!status.available || status.bwrapPath === undefined) {
    if (options.mode === 'required')
      throw new CadreError(
        'sandbox_unavailable',
        `the sandbox is required but unavailable: ${status.detail}`,
      );
    return {
      file: target.command,
      args: target.args,
      cwd: target.cwd,
      env,
      sandbox: 'none',
      note: status.detail,
    };
  }
  const args = [
    ...(await serverBwrapArgs(options.stateDir, target.cwd, options.home)),
    // Mounted after the private /tmp, so a project under /tmp stays visible, read-only; then the
    // directories the configuration makes writable, which may lie inside the project.
    '--ro-bind',
    options.projectDir,
    options.projectDir,
    ...programDirsUnderTmp(target).flatMap((dir) => ['--ro-bind', dir, dir]),
    ...target.sandbox.writable.flatMap((dir) => ['--bind', dir, dir]),
    ...(target.sandbox.network ? ['--share-net'] : []),
    '--seccomp',
    String(SECCOMP_FD),
    '--',
    target.command,
    ...target.args,
  ];
  return { ...(await withSeccompFd(status, status.bwrapPath, args)), cwd: target.cwd, env, sandbox: 'bwrap' };
}

/**
 * bwrap started by a system sh that opens the seccomp filter's file on the descriptor `--seccomp`
 * names. A status the probe found available has both (its trial ran under the filter).
 */
async function withSeccompFd(
  status: SandboxStatus,
  bwrap: string,
  args: string[],
): Promise<{ file: string; args: string[] }> {
  const filter = setidFilter(status.arch);
  if (filter === undefined || status.sh === undefined)
    throw new CadreError('sandbox_unavailable', `no seccomp filter can be loaded here: ${status.detail}`);
  const file = seccompFile((await workspace()).dir, filter);
  return {
    file: status.sh,
    args: ['-c', `exec "$@" ${SECCOMP_FD}< "$0"`, file, bwrap, ...args],
  };
}

/**
 * The server's own program, when the configuration names it under /tmp (a checkout or a download
 * there): the private /tmp would hide it, so the top directory under /tmp that holds it is mounted
 * read-only. Only absolute paths the configuration wrote that exist count; the rest of /tmp stays
 * hidden.
 */
function programDirsUnderTmp(target: StdioTarget): string[] {
  const dirs = new Set<string>();
  for (const arg of [target.command, ...target.args]) {
    if (!arg.startsWith('/tmp/') || arg.includes('\0')) continue;
    const top = path.normalize(arg).split('/')[2];
    if (top === undefined || top === '' || top === '..') continue;
    const dir = path.join('/tmp', top);
    if (existsSync(arg)) dirs.add(dir);
  }
  return [...dirs];
}

/**
 * bwrap arguments (before the mounts of the project and the configured directories) for a server:
 * fresh namespaces (`--unshare-all`: no network unless `--share-net` follows), no capabilities
 * (also when cadre runs as root), killed with cadre, a new session, the host's root read-only with
 * the home's credential stores hidden (cadre's own data included), fresh /dev and /proc, a private
 * /tmp, and only the server's state directory writable.
 */
async function serverBwrapArgs(stateDir: string, cwd: string, home: string): Promise<string[]> {
  const args = [
    '--unshare-all',
    '--cap-drop',
    'ALL',
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
  for (const hidden of credentialsUnder('/', home))
    args.push(...(hidden.dir ? ['--tmpfs', hidden.path] : ['--ro-bind', '/dev/null', hidden.path]));
  args.push('--bind', stateDir, stateDir, '--chdir', cwd);
  return args;
}
