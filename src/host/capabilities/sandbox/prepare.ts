// Everything between "run this command sandboxed" and a spawn: the plan (what the command sees),
// the per-command pids cgroup when that is the process cap, the backend's argument list, and the
// cleanup that must follow the command's end (placeholders, cgroup).
import { launchSpec, type LaunchSpec } from './launch.js';
import { planSandbox, sandboxHome, type PlanRequest } from './plan.js';
import { commandCgroup } from './process-cap.js';
import { mirrorEtc } from './etc-view.js';
import { systemView } from './system-view.js';
import { TreeScanner } from './tree-scan.js';
import type { SandboxStatus } from './types.js';
import { workspace } from './workspace.js';

/** What a command's sandbox is made from, besides the command: what its plan is made from. */
export type SandboxRequest = PlanRequest;

/** A sandboxed command ready to spawn, while its plan is still being made. */
export interface PreparedCommand {
  file: string;
  args: string[];
  /** Variables the launcher needs besides the command's environment. */
  env: Record<string, string>;
  /** HOME inside the sandbox. */
  home: string;
  /**
   * Makes the plan (call it once the launcher is spawned, so that both run at once) and resolves to
   * what to write to the launcher's `FEED_FD` before closing it; rejects when the plan cannot be
   * made, and then the launcher must be killed: it runs nothing without it.
   */
  feed(): Promise<Buffer>;
  /** Undoes what preparing did; resolves to notes for the user (a protected path moved aside). */
  cleanup(): Promise<string[]>;
}

/** One scanner per process: listings stay cached across commands. */
const scanner = new TreeScanner();

/**
 * Builds the launch of `command` under `status` (which must be available) and starts its plan: the
 * launcher can start at once, making its namespaces while the project is scanned.
 */
export async function prepareSandboxed(
  status: SandboxStatus,
  req: SandboxRequest,
  command: string,
): Promise<PreparedCommand> {
  const [ws, system] = await Promise.all([workspace(), systemView()]);
  let cgroup: ReturnType<typeof commandCgroup> | undefined;
  let spec: LaunchSpec;
  try {
    if (status.processCap.kind === 'cgroup' && status.processCap.cgroupDir !== undefined)
      cgroup = commandCgroup(status.processCap.cgroupDir);
    spec = launchSpec({
      status,
      command,
      cwd: req.cwd,
      ws,
      ...(cgroup ? { cgroupProcs: cgroup.procs } : {}),
    });
  } catch (error) {
    await cgroup?.remove();
    throw error;
  }
  let planned: ReturnType<typeof planSandbox> | undefined;
  return {
    file: spec.file,
    args: spec.args,
    env: spec.env ?? {},
    home: sandboxHome(req.home, system),
    feed() {
      planned ??= planSandbox(req, mirrorEtc(system, ws.dir), scanner);
      return planned.then((p) => spec.feed(p.plan));
    },
    async cleanup() {
      // The cgroup empties only as the kernel reaps the namespace's processes: that wait is not
      // the caller's (its processes are already dead; what is left is bookkeeping).
      void cgroup?.remove();
      const made = await planned?.catch(() => undefined);
      return made === undefined ? [] : made.protection.release();
    },
  };
}
