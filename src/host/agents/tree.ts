// State shared by one agent tree (a top-level run and its descendants): token accounting against
// the tree budget, the todo list, and the event listeners of the caller that started it.
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../../shared/events.js';
import { addUsage, emptyUsage, totalTokens, type Usage } from '../../shared/task.js';
import type { TodoItem } from '../../shared/tools.js';

/** One agent tree. */
export class AgentTree {
  usage: Usage = emptyUsage();
  todos: TodoItem[] = [];
  /**
   * The tree's identity in transcripts, unique across processes: a subagent may resume only a run
   * whose transcript carries it. A person resuming a run continues that run's tree (`adopt`).
   */
  uid: string = randomUUID();
  /** Subagents launched in this tree so far (every depth, foreground and background). */
  spawned = 0;
  private readonly perRun = new Map<string, Usage>();

  constructor(
    readonly id: string,
    readonly tokenBudget: number | undefined,
    readonly listeners: ((event: AgentEvent) => void)[] = [],
    /** A session's tree: background runs outlive the turn that started them. */
    readonly detachBackground = false,
  ) {}

  /** Records a run's cumulative usage; returns the tree's total tokens. */
  record(agentId: string, cumulative: Usage): number {
    const before = this.perRun.get(agentId) ?? emptyUsage();
    this.perRun.set(agentId, cumulative);
    this.usage = addUsage(this.usage, {
      input_tokens: cumulative.input_tokens - before.input_tokens,
      output_tokens: cumulative.output_tokens - before.output_tokens,
      cache_read_input_tokens: cumulative.cache_read_input_tokens - before.cache_read_input_tokens,
      cache_creation_input_tokens:
        cumulative.cache_creation_input_tokens - before.cache_creation_input_tokens,
    });
    return totalTokens(this.usage);
  }

  /** Takes on the identity of the tree a resumed run belonged to (only before any child starts). */
  adopt(uid: string): void {
    if (this.spawned === 0) this.uid = uid;
  }

  /** Counts one more subagent launch; false (and nothing counted) when `limit` are already launched. */
  claimSpawn(limit: number): boolean {
    if (this.spawned >= limit) return false;
    this.spawned++;
    return true;
  }

  /** Gives back a launch counted by `claimSpawn` that did not start. */
  releaseSpawn(): void {
    if (this.spawned > 0) this.spawned--;
  }

  /** True when the tree has spent its budget. */
  exhausted(): boolean {
    return this.tokenBudget !== undefined && totalTokens(this.usage) >= this.tokenBudget;
  }

  /** Delivers an event to the tree's listeners; a listener that throws never disturbs the run. */
  emit(event: AgentEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A caller's bug must not cost a run its terminal status.
      }
    }
  }
}
