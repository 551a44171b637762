// The command sandbox, as the rest of the host uses it: probe once per process, prepare one
// command's sandbox, and describe what is in force. The parts live in ./sandbox/.
export { probeSandbox } from './sandbox/probe.js';
export { prepareSandboxed, type SandboxRequest } from './sandbox/prepare.js';
export { FEED_FD, SANDBOX_LIMITS, type SandboxStatus } from './sandbox/types.js';

import type { SandboxStatus } from './sandbox/types.js';

/** Why a command cannot run: what the probe found, the fix, and the opt-out. */
export function unavailableMessage(status: SandboxStatus): string {
  return `no command runs without a sandbox, and none works here: ${status.detail}${status.fix ? `\n${status.fix}` : ''}`;
}

/** What `sandbox: "required"` adds to `auto`: every limit enforced, or no command runs. */
export function requiredShortfall(status: SandboxStatus): string | undefined {
  if (status.processCap.kind === 'none')
    return `no process cap can be enforced here (${status.processCap.detail})`;
  if (status.mode === 'bwrap' && status.bwrapFeatures?.size === false)
    return `${status.bwrapPath ?? 'bwrap'} cannot cap the size of the private /tmp (it has no --size option)`;
  return undefined;
}
