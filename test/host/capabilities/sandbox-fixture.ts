// The sandbox backends this machine offers, for tests that run the same checks under each. bwrap
// is taken from the system; unshare is reached the way a user without bubblewrap reaches it, by a
// bwrapPath in config that names no working program. Under CI both must work (.ci/run installs
// bubblewrap, and util-linux is Essential): a missing backend fails there instead of skipping.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { runCommand, type SandboxInputs } from '../../../src/host/capabilities/exec.js';
import { probeSandbox, type SandboxStatus } from '../../../src/host/capabilities/sandbox.js';
import type { SandboxPlan } from '../../../src/host/capabilities/sandbox/types.js';
import type { ExecRunResult } from '../../../src/shared/capabilities.js';

/** A backend and its probe result. */
export interface Backend {
  name: 'bwrap' | 'unshare';
  status: SandboxStatus;
}

/** A bwrapPath that names nothing: the probe then falls back to the unshare backend. */
export const NO_BWRAP = '/nonexistent/cadre-test/bwrap';

/** The backends that work here; the others are reported with why. */
export async function sandboxBackends(): Promise<{ available: Backend[]; missing: string[] }> {
  const bwrap = await probeSandbox();
  const unshare = await probeSandbox({ bwrapPath: NO_BWRAP });
  const available: Backend[] = [];
  const missing: string[] = [];
  if (bwrap.mode === 'bwrap') available.push({ name: 'bwrap', status: bwrap });
  else missing.push(`bwrap: ${bwrap.attempts.find((a) => a.backend === 'bwrap')?.detail ?? bwrap.detail}`);
  if (unshare.mode === 'unshare') available.push({ name: 'unshare', status: unshare });
  else missing.push(`unshare: ${unshare.detail}`);
  if (process.env.CI === 'true' && missing.length > 0)
    throw new Error(`CI runs both sandbox backends, and here ${missing.join('; ')}`);
  return { available, missing };
}

/** Runs `command` in `project` under `backend`. */
export function runIn(
  backend: Backend,
  project: string,
  command: string,
  inputs: SandboxInputs = {},
  extra: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ExecRunResult> {
  return runCommand({
    command,
    cwd: project,
    sandbox: 'auto',
    sandboxStatus: backend.status,
    sandboxInputs: inputs,
    ...extra,
  });
}

/** Live processes whose command line contains `marker`. */
export async function survivors(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) pids.push(Number(name));
  }
  return pids;
}

/**
 * Live processes whose command line contains `marker` once they have had `ms` to die: polled, so a
 * kill the kernel delivers late on a loaded machine is not taken for a survivor, while one that
 * really survives (a `sleep 1000`) is still there when the time is up.
 */
export async function survivorsAfter(marker: string, ms = 5000): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const pids = await survivors(marker);
    if (pids.length === 0 || Date.now() > end) return pids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A token unique to one test, for canaries and process markers. */
export function token(label: string): string {
  return `${label}-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
}

/** A plan of the system directories and `dir` (writable, the command's directory): a launcher's least. */
export function systemPlan(dir: string): SandboxPlan {
  return {
    cwd: dir,
    home: '/h',
    mounts: [
      { kind: 'ro-bind', source: '/usr', target: '/usr' },
      ...['bin', 'lib', 'lib64', 'sbin']
        .filter((d) => existsSync(`/usr/${d}`))
        .map((d): SandboxPlan['mounts'][number] => ({
          kind: 'symlink',
          linkTarget: `usr/${d}`,
          target: `/${d}`,
        })),
      { kind: 'dev' },
      { kind: 'proc' },
      { kind: 'bind', source: dir, target: dir },
    ],
  };
}
