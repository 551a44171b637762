// The runtime's side of the command sandbox: the merged settings, the probe (once per process, on
// the first command), and what the user is told on stderr. A run with the sandbox off says so
// when it starts; a command that could not run for want of a sandbox says why (the full reason and
// fix once, one line each time after); what the sandbox had to undo afterwards is reported too.
import type { SandboxSettings } from '../../config/merge.js';
import { probeSandbox } from './probe.js';
import type { SandboxStatus } from './types.js';

/** Writes one warning line for the user (the CLI: stderr). */
export type WarningSink = (message: string) => void;

/** The warning printed when config turns the sandbox off. */
export const SANDBOX_OFF_WARNING =
  'the command sandbox is off ("sandbox": "off" in ~/.cadre/config.json): commands run with no isolation, with your files, your network and your processes';

/** One runtime's command sandbox. */
export class SandboxGate {
  private explained = false;

  /**
   * @param records cadre's own records (transcripts, the audit log, a cassette being recorded):
   *   hidden from commands like secrets, so no command reads another run's conversation.
   */
  constructor(
    readonly settings: SandboxSettings,
    private readonly warn: WarningSink,
    readonly records: readonly string[] = [],
  ) {}

  /** Warnings due when a runtime starts: ignored project settings, and the sandbox being off. */
  startupWarnings(): string[] {
    return [...this.settings.warnings, ...(this.settings.mode === 'off' ? [SANDBOX_OFF_WARNING] : [])];
  }

  /** Prints the startup warnings. */
  announce(): void {
    for (const message of this.startupWarnings()) this.warn(message);
  }

  /** The probe's result (cached for the process). */
  status(): Promise<SandboxStatus> {
    return probeSandbox(this.settings.bwrapPath !== undefined ? { bwrapPath: this.settings.bwrapPath } : {});
  }

  /** A command was not run because no sandbox could hold it. */
  refused(agentId: string, reason: string): void {
    if (!this.explained) {
      this.explained = true;
      this.warn(`a command of ${agentId} was not run: ${reason}`);
    } else this.warn(`a command of ${agentId} was not run: no sandbox works here (see above)`);
  }

  /** What the sandbox did after a command (a protected path moved aside). */
  notices(agentId: string, notices: readonly string[]): void {
    for (const notice of notices) this.warn(`after a command of ${agentId}: ${notice}`);
  }
}
