// The user message the loop sends next: the prompt, tool results, the grace note or the request to
// continue a cut-off reply, gathered as blocks and appended to the conversation in one message.
import type { AgentEvent, ConversationMessage } from '../../shared/events.js';
import type { StampEvent } from './agent-event.js';
import type { Block, Conversation } from './conversation.js';

/** The blocks of the next user message, starting with the run's prompt. */
export class NextMessage {
  private blocks: Block[];

  constructor(
    private readonly convo: Conversation,
    private readonly event: StampEvent,
    prompt: string,
  ) {
    this.blocks = [{ type: 'text', text: prompt }];
  }

  /** Adds a block after those already gathered. */
  push(block: Block): void {
    this.blocks.push(block);
  }

  /** Replaces the gathered blocks (tool results, which are a message of their own). */
  set(blocks: Block[]): void {
    this.blocks = blocks;
  }

  /**
   * Adds the grace note. After tool results it shares their message; after a prompt the prompt is
   * sent first, so the task stays apart from the note.
   */
  *addGraceNote(text: string): Generator<AgentEvent> {
    if (!this.blocks.some((b) => b['type'] === 'tool_result')) yield* this.flush();
    this.blocks.push({ type: 'text', text });
  }

  /** Appends the gathered blocks as a user message (a lone text as a string); yields its event. */
  *flush(): Generator<AgentEvent> {
    if (this.blocks.length === 0) return;
    const [first] = this.blocks;
    const content =
      this.blocks.length === 1 && first?.['type'] === 'text' ? String(first['text']) : this.blocks;
    this.blocks = [];
    yield append(this.convo, this.event, { role: 'user', content });
  }
}

/** Appends `message` to the conversation and returns its `message-append` event. */
export function append(convo: Conversation, event: StampEvent, message: ConversationMessage): AgentEvent {
  convo.append(message);
  return event({ type: 'message-append', message });
}
