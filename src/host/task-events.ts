// A task handle's `events`: the tree's events are kept for the caller only once it reads them.
// A caller that takes only the result (most scripts, every batch task) holds none of them, so a
// long run's streamed text and conversation payloads are not kept until the task ends.
import type { AgentEvent } from '../shared/events.js';
import { EventChannel } from './agents/event-channel.js';
import type { AgentTree } from './agents/tree.js';

/** Follows one task's tree for its handle. */
export class TaskEvents {
  private channel: EventChannel<AgentEvent> | undefined;
  /** What happened before the handle reached its caller; dropped if `events` is not read then. */
  private early: AgentEvent[] = [];
  private listening = false;
  private readonly listener = (event: AgentEvent): void => {
    if (this.channel) this.channel.push(event);
    else this.early.push(event);
  };

  /** `wanted` false (TaskOptions.events) keeps nothing from the start. */
  constructor(
    private readonly tree: AgentTree,
    wanted: boolean,
  ) {
    if (!wanted) return;
    tree.listeners.push(this.listener);
    this.listening = true;
  }

  /** The events from the task's start; the first read opens the channel. */
  read(): AsyncIterable<AgentEvent> {
    if (this.channel) return this.channel;
    const channel = new EventChannel<AgentEvent>();
    for (const event of this.early) channel.push(event);
    this.early = [];
    if (!this.listening) channel.close();
    this.channel = channel;
    return channel;
  }

  /**
   * Called as the handle goes to its caller. A caller that iterates `events` reads the property as
   * soon as `task()` resolves, in the same turn of the event loop; one that did not by the next
   * turn never will, and its events stop being kept.
   */
  handedOver(): void {
    setImmediate(() => {
      if (this.channel) return;
      this.stopListening();
      this.early = [];
    });
  }

  /** The task ended: no more events come; what was kept stays readable until handed over. */
  end(): void {
    this.stopListening();
    this.channel?.close();
  }

  private stopListening(): void {
    if (!this.listening) return;
    const at = this.tree.listeners.indexOf(this.listener);
    if (at !== -1) this.tree.listeners.splice(at, 1);
    this.listening = false;
  }
}
