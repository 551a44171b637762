// `cadre doctor`: what command sandbox is in force here and why, what commands can see, and a
// self-test that checks the sandbox's promises with real commands. Exit 0 only when commands run
// sandboxed and every check passes.
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { formatIssue } from '../../registry/index.js';
import { homeEntries } from '../../capabilities/sandbox/home.js';
import { probeSandbox, requiredShortfall, SANDBOX_LIMITS } from '../../capabilities/sandbox.js';
import { SANDBOX_OFF_WARNING, SandboxGate } from '../../capabilities/sandbox/gate.js';
import { sandboxSelfTest, type SelfTestCheck } from '../../capabilities/sandbox/self-test.js';
import { systemView } from '../../capabilities/sandbox/system-view.js';
import { globalOptions, inertJson, type CliContext } from '../context.js';
import { formatDoctor, type DoctorReport } from './doctor-format.js';

/** Builds the report (probe, what is visible, self-test). */
async function doctorReport(command: Command, ctx: CliContext): Promise<DoctorReport> {
  const global = await globalOptions(command, ctx);
  const loaded = await loadConfig({ cwd: global.cwd, home: global.home });
  const settings = loaded.merged.sandbox;
  const gate = new SandboxGate(settings, () => undefined);
  const status = await probeSandbox(
    settings.bwrapPath !== undefined ? { bwrapPath: settings.bwrapPath } : {},
  );
  const checks: SelfTestCheck[] = status.available ? await sandboxSelfTest(status) : [];
  const system = await systemView();
  const shortfall = settings.mode === 'required' && status.available ? requiredShortfall(status) : undefined;
  const commandsRun =
    settings.mode === 'off'
      ? 'without a sandbox'
      : !status.available || shortfall !== undefined
        ? 'not at all'
        : `sandboxed (${status.mode})`;
  return {
    ok: settings.mode !== 'off' && status.available && shortfall === undefined && checks.every((c) => c.ok),
    commandsRun,
    mode: settings.mode,
    configErrors: loaded.errors.map(formatIssue),
    warnings: [
      ...gate.startupWarnings().filter((w) => w !== SANDBOX_OFF_WARNING),
      ...(shortfall ? [`"required": ${shortfall}`] : []),
    ],
    status,
    limits: {
      processes: SANDBOX_LIMITS.processes,
      tmpMiB: SANDBOX_LIMITS.tmpBytes / 2 ** 20,
      homeMiB: SANDBOX_LIMITS.homeBytes / 2 ** 20,
      shmMiB: SANDBOX_LIMITS.shmBytes / 2 ** 20,
    },
    readable: {
      system: system.roots.map((r) => (r.kind === 'dir' ? r.path : `${r.path} -> ${r.target}`)),
      withheld: system.withheld.map((w) => `${w.path}: ${w.reason}`),
      hiddenInSystem: system.hidden.map((h) => h.path),
      home: await homeEntries(global.home, ctx.env.PATH ?? ''),
      extra: [...loaded.merged.permissions.additionalDirectories, ...settings.allowRead],
    },
    selfTest: checks,
  };
}

/** Registers `cadre doctor`. */
export function registerDoctorCommand(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description('show which command sandbox is in force and why, and test it with real commands')
    .option('--json', 'print the report as JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      const report = await doctorReport(command, ctx);
      // The report quotes config (a project's paths, its errors): made inert for the terminal.
      const { clean } = await globalOptions(command, ctx);
      ctx.io.stdout(
        flags.json ? `${inertJson(JSON.stringify(report, null, 2))}\n` : clean.block(formatDoctor(report)),
      );
      ctx.exitCode = report.ok ? 0 : 1;
    });
}
