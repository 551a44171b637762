// The text form of `cadre doctor`'s report.
import type { SandboxStatus } from '../../capabilities/sandbox.js';
import type { SelfTestCheck } from '../../capabilities/sandbox/self-test.js';

/** Everything `cadre doctor` found. */
export interface DoctorReport {
  /** True when commands run sandboxed and every self-test check passed. */
  ok: boolean;
  /** `sandboxed (bwrap)`, `sandboxed (unshare)`, `without a sandbox` or `not at all`. */
  commandsRun: string;
  /** The `sandbox` mode in force after merging the config files. */
  mode: string;
  configErrors: string[];
  warnings: string[];
  status: SandboxStatus;
  limits: { processes: number; tmpMiB: number; homeMiB: number; shmMiB: number };
  readable: {
    system: string[];
    withheld: string[];
    hiddenInSystem: string[];
    home: string[];
    extra: string[];
  };
  selfTest: SelfTestCheck[];
}

const list = (items: readonly string[]) => (items.length === 0 ? '-' : items.join(', '));

/** Formats the report for a terminal. */
export function formatDoctor(r: DoctorReport): string {
  const s = r.status;
  const lines = [
    `commands run:   ${r.commandsRun}`,
    `sandbox mode:   ${r.mode}${r.mode === 'off' ? ' (config turns the sandbox off: commands run with no isolation)' : ''}`,
    `backend:        ${s.available ? `${s.mode}: ${s.detail}` : `none: ${s.detail}`}`,
    `running as:     uid ${s.uid}${s.uid === 0 ? ' (root: capabilities are dropped inside)' : ''}`,
    `process cap:    ${s.processCap.kind === 'none' ? `none (${s.processCap.detail})` : `${r.limits.processes} (${s.processCap.detail})`}`,
    `private RAM:    /tmp ${r.limits.tmpMiB} MiB, home ${r.limits.homeMiB} MiB, /dev/shm ${r.limits.shmMiB} MiB`,
    'tried:',
    ...s.attempts.map((a) => `  ${a.ok ? 'ok  ' : 'fail'} ${a.backend}: ${a.detail}`),
    'commands can read:',
    `  system:       ${list(r.readable.system)}`,
    `  hidden there: ${r.readable.hiddenInSystem.length} entries others may not read (${list(r.readable.hiddenInSystem.slice(0, 4))}${r.readable.hiddenInSystem.length > 4 ? ', ...' : ''})`,
    ...(r.readable.withheld.length > 0 ? [`  left out:     ${list(r.readable.withheld)}`] : []),
    `  home:         ${list(r.readable.home)} (read-only; credential stores hidden)`,
    `  extra:        ${list(r.readable.extra)}`,
    '  the project (writable, except its protected paths; its secrets read as empty)',
  ];
  if (r.warnings.length > 0 || r.configErrors.length > 0) {
    lines.push('warnings:');
    for (const w of [...r.configErrors, ...r.warnings]) lines.push(`  ${w}`);
  }
  if (r.selfTest.length > 0) {
    lines.push('self-test:');
    for (const c of r.selfTest) lines.push(`  ${c.ok ? 'pass' : 'FAIL'} ${c.name}: ${c.detail}`);
  }
  if (!s.available && s.fix !== undefined)
    lines.push('how to fix:', ...s.fix.split('\n').map((l) => `  ${l}`));
  lines.push(r.ok ? 'result: ok' : 'result: commands are not sandboxed as they should be (see above)');
  return `${lines.join('\n')}\n`;
}
