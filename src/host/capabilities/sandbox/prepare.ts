// Everything between "run this command sandboxed" and a spawn: the plan (what the command sees),
// the per-command pids cgroup when that is the process cap, the backend's argument list, and the
// cleanup that must follow the command's end (placeholders, cgroup).
import { launchSpec } from './launch.js';
import { planSandbox, type PlanRequest } from './plan.js';
import { commandCgroup } from './process-cap.js';
import { mirrorEtc } from './etc-view.js';
import { systemView } from './system-view.js';
import { TreeScanner } from './tree-scan.js';
import type { SandboxStatus } from './types.js';
import { workspace } from './workspace.js';

/** What a command's sandbox is made from, besides the command: what its plan is made from. */
export type SandboxRequest = PlanRequest;

/** A sandboxed command ready to spawn. */
export interface PreparedCommand {
  file: string;
  args: string[];
  /** Variables the launcher needs besides the command's environment. */
  env: Record<string, string>;
  /** HOME inside the sandbox. */
  home: string;
  /** Undoes what preparing did; resolves to notes for the user (a protected path moved aside). */
  cleanup(): Promise<string[]>;
}

/** One scanner per process: listings stay cached across commands. */
const scanner = new TreeScanner();

/** Plans and builds the launch of `command` under `status` (which must be available). */
export async function prepareSandboxed(
  status: SandboxStatus,
  req: SandboxRequest,
  command: string,
): Promise<PreparedCommand> {
  const [ws, system] = await Promise.all([workspace(), systemView()]);
  const planned = await planSandbox(req, mirrorEtc(system, ws.dir), scanner);
  let cgroup: ReturnType<typeof commandCgroup> | undefined;
  try {
    if (status.processCap.kind === 'cgroup' && status.processCap.cgroupDir !== undefined)
      cgroup = commandCgroup(status.processCap.cgroupDir);
    const spec = await launchSpec({
      status,
      plan: planned.plan,
      command,
      ws,
      ...(cgroup ? { cgroupProcs: cgroup.procs } : {}),
    });
    return {
      file: spec.file,
      args: spec.args,
      env: spec.env ?? {},
      home: planned.plan.home,
      async cleanup() {
        // The cgroup empties only as the kernel reaps the namespace's processes: that wait is not
        // the caller's (its processes are already dead; what is left is bookkeeping).
        void cgroup?.remove();
        return planned.protection.release();
      },
    };
  } catch (error) {
    await cgroup?.remove();
    await planned.protection.release();
    throw error;
  }
}
