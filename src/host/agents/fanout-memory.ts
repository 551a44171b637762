// How wide each agent of a project fanned out in its latest runs, so that its next run starts
// threads for its subagents while its model call is in flight instead of after the reply. People
// run the same lead in the same project again and again; a reply that arrives whole names all its
// subagents at once, and only threads started before it are ready for them (docs/fan-out.md).
//
// What is kept: per agent name, its latest RUNS_KEPT runs, each the delegation blocks (Task calls
// and agent-as-tool calls) of each of its model replies. What is predicted for a request at turn t:
// the widest reply at turn t or later in any of those runs ("the widest still to come"). A lead
// that reads first and fans out later gets its threads during the reads; a lead whose fan-out is
// behind it wants none for its summing-up turns (where a 30 s idle timeout may have ended its
// children's threads, re-wanting them would start them again for nothing).
//
// The file is read once when the runtime starts and written after runs end (one write at a time,
// merged with what other processes wrote for other agents; for one agent the last writer wins).
import {
  AGENTS_KEPT,
  MAX_WIDTH,
  readFanoutFile,
  RUNS_KEPT,
  TURNS_KEPT,
  writeFanoutFile,
  type FanoutAgent,
} from './fanout-file.js';

/** The widest reply at `turn` or later in any of `runs`; 0 when none fanned out that late. */
export function widestStillToCome(runs: readonly (readonly number[])[], turn: number): number {
  let widest = 0;
  for (const run of runs) for (let t = turn; t < run.length; t++) widest = Math.max(widest, run[t] ?? 0);
  return widest;
}

/** The remembered fan-out widths of one project's agents. */
export class FanoutMemory {
  private readonly agents = new Map<string, FanoutAgent>();
  /** Agents this process recorded runs of (written over what the file holds for them). */
  private readonly touched = new Set<string>();
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  private constructor(private readonly file: string) {}

  /** The memory kept in `file` (read now; a missing or bad file is an empty memory). */
  static async open(file: string): Promise<FanoutMemory> {
    const memory = new FanoutMemory(file);
    for (const agent of await readFanoutFile(file)) memory.agents.set(agent.name, agent);
    return memory;
  }

  /** The threads `agent`'s request at `turn` is predicted to need for its subagents. */
  predict(agent: string, turn: number): number {
    return widestStillToCome(this.agents.get(agent)?.runs ?? [], turn);
  }

  /** Remembers one run of `agent`: its replies' delegation blocks, in order. Written soon after. */
  record(agent: string, widths: readonly number[]): void {
    if (widths.length === 0) return;
    const old = this.agents.get(agent)?.runs ?? [];
    const run = widths.slice(0, TURNS_KEPT).map((w) => Math.min(w, MAX_WIDTH));
    this.agents.set(agent, { name: agent, at: Date.now(), runs: [...old, run].slice(-RUNS_KEPT) });
    this.touched.add(agent);
    this.dirty = true;
    this.writing = this.writing.then(() => this.write());
  }

  /** Waits for pending writes (the runtime is closing). */
  flush(): Promise<void> {
    return this.writing;
  }

  /** Writes what changed, merged with what the file holds now for other agents. */
  private async write(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const merged = new Map<string, FanoutAgent>();
    for (const agent of await readFanoutFile(this.file))
      if (!this.touched.has(agent.name)) merged.set(agent.name, agent);
    for (const name of this.touched) {
      const agent = this.agents.get(name);
      if (agent) merged.set(name, agent);
    }
    const kept = [...merged.values()].sort((a, b) => b.at - a.at).slice(0, AGENTS_KEPT);
    await writeFanoutFile(this.file, kept);
  }
}
