// What the host knows of a run from its worker's events: which of them to believe, and the
// partial result a kill keeps (usage, turns, tool calls, the text of the last turn that had any).
import { AgentEvent, parseTextDelta } from '../../shared/events.js';
import { emptyUsage, type Usage } from '../../shared/task.js';

/** Event types a worker may report; anything else from a worker is dropped. */
const WORKER_EVENTS: ReadonlySet<string> = new Set([
  'text-delta',
  'tool-call',
  'tool-result',
  'message-append',
  'turn-end',
  'usage',
  'notice',
  'model-exchange',
]);

/** The host's identity of a run, stamped on every event its worker sends. */
export interface RunStamp {
  agentId: string;
  depth: number;
  parentId?: string;
}

/** One run's tally of its worker's events. */
export class RunTally {
  usage: Usage = emptyUsage();
  turns = 0;
  toolCalls = 0;
  // The partial text is the host's own copy of what streamed, held to the reply cap (a worker
  // cannot make the host keep more), and never flattened or trimmed: it can be tens of MB.
  private turnText = '';
  private turnHasText = false;
  private lastText = '';

  constructor(
    private readonly stamp: RunStamp,
    private readonly maxReplyChars: number,
  ) {}

  /**
   * The events of one `events.emit` call that the host accepts, each counted. What is not a list
   * of valid worker events is dropped, item by item.
   */
  take(raw: unknown): AgentEvent[] {
    const accepted: AgentEvent[] = [];
    for (const item of Array.isArray(raw) ? (raw as unknown[]) : []) {
      const event = this.validate(item);
      if (event === undefined) continue;
      this.count(event);
      accepted.push(event);
    }
    return accepted;
  }

  /** The text of the last turn that had any, the current turn's if it has. */
  partialText(): string {
    return this.turnHasText ? this.turnText : this.lastText;
  }

  private validate(item: unknown): AgentEvent | undefined {
    const delta = parseTextDelta(item, this.stamp);
    if (delta !== undefined) return delta;
    // The identity is the host's: a worker cannot claim another run's id, depth or parent.
    const forced: Record<string, unknown> = { ...(item as object), ...this.stamp };
    if (!this.stamp.parentId) delete forced.parentId;
    const parsed = AgentEvent.safeParse(forced);
    // Only what an agent loop produces: lifecycle, approval and todo events are the host's own.
    return parsed.success && WORKER_EVENTS.has(parsed.data.type) ? parsed.data : undefined;
  }

  private count(event: AgentEvent): void {
    if (event.type === 'text-delta') this.keepText(event.text);
    if (event.type === 'tool-call') this.toolCalls++;
    if (event.type === 'turn-end') {
      this.turns = event.turn;
      if (this.turnHasText) this.lastText = this.turnText;
      this.turnText = '';
      this.turnHasText = false;
    }
    if (event.type === 'usage') this.usage = event.usage;
  }

  private keepText(text: string): void {
    const room = this.maxReplyChars - this.turnText.length;
    if (room <= 0) return;
    this.turnText += text.length <= room ? text : text.slice(0, room);
    if (!this.turnHasText && /\S/.test(text)) this.turnHasText = true;
  }
}
