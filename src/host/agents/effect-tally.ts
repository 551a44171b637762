// Counts, from a tree's events, what its runs tried and what the host refused: every front end
// (the CLI's progress lines and exit codes, a batch's summary, an interactive UI) reads the same
// numbers. Refusals come from the host's own `effect-refused` events; attempts from the tool calls
// the runs reported.
import type { AgentEvent } from '../../shared/events.js';
import { MUTATING_TOOLS } from '../../shared/tools.js';

/** The capabilities that change something: a refused one means the task's effect did not happen. */
const CHANGE_CAPABILITIES: ReadonlySet<string> = new Set(['fs.write', 'exec.run']);

/** What one run (or a whole tree) tried and had refused. */
export interface EffectCounts {
  /** Tool calls the runs made. */
  toolCalls: number;
  /** Tool calls of tools that change things (Write, Edit, Bash). */
  changeCalls: number;
  /** Capability calls the host refused, of any kind. */
  refused: number;
  /** Refused writes and commands. */
  refusedChanges: number;
}

const zero = (): EffectCounts => ({ toolCalls: 0, changeCalls: 0, refused: 0, refusedChanges: 0 });

/** Counts per run, and over every run it has seen. */
export class EffectTally {
  private readonly runs = new Map<string, EffectCounts>();
  private readonly all = zero();

  /** Takes one event into account (events of other types are ignored). */
  observe(event: AgentEvent): void {
    if (event.type !== 'tool-call' && event.type !== 'effect-refused') return;
    let mine = this.runs.get(event.agentId);
    if (mine === undefined) this.runs.set(event.agentId, (mine = zero()));
    for (const counts of [mine, this.all]) {
      if (event.type === 'tool-call') {
        counts.toolCalls++;
        if (MUTATING_TOOLS.has(event.name)) counts.changeCalls++;
      } else {
        counts.refused++;
        if (CHANGE_CAPABILITIES.has(event.capability)) counts.refusedChanges++;
      }
    }
  }

  /** The counts of one run, or of everything seen. */
  counts(agentId?: string): EffectCounts {
    return { ...(agentId === undefined ? this.all : (this.runs.get(agentId) ?? zero())) };
  }
}

/**
 * The note a run ends with when writes or commands were refused, or undefined when none were:
 * whether every one it tried was refused (nothing it meant to change changed) or some.
 */
export function refusalNote(counts: EffectCounts): string | undefined {
  if (counts.refusedChanges === 0) return undefined;
  const n = counts.refusedChanges;
  const what = n === 1 ? 'write or command' : 'writes and commands';
  const fix =
    'To allow them, add allow rules to permissions.allow in .cadre/config.json or pass a --permission-mode that allows them (acceptEdits for file edits).';
  if (counts.changeCalls <= n)
    return `every write and command this run tried was refused (${n} refused): none of them took effect. ${fix}`;
  return `${n} ${what} of ${counts.changeCalls} this run tried ${n === 1 ? 'was' : 'were'} refused and did not take effect. ${fix}`;
}
