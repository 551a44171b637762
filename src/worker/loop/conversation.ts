// The conversation a run builds: messages in order, their total size against the run's cap,
// and whether tool blocks appear in it (which decides how a tool-less turn must be asked for).
import type { ConversationMessage } from '../../shared/events.js';

/** A content block of a message, as the Messages API takes it. */
export type Block = Record<string, unknown>;

// The API refuses a conversation holding any of these when the request defines no tools.
const TOOL_BLOCKS: ReadonlySet<string> = new Set([
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
]);

/** The run's conversation. Messages are never changed once appended. */
export class Conversation {
  private readonly messages: ConversationMessage[] = [];
  private chars = 0;
  /** True once a tool block (a client tool's use or result, or a server tool's) is in the conversation. */
  hasToolBlocks = false;

  constructor(
    history: readonly ConversationMessage[],
    /** The size (chars of JSON content) beyond which the run must stop. */
    readonly maxChars: number,
  ) {
    for (const m of history) this.append(m);
  }

  /** Adds a message. */
  append(message: ConversationMessage): void {
    this.messages.push(message);
    this.chars +=
      typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content).length;
    if (Array.isArray(message.content) && message.content.some((b) => TOOL_BLOCKS.has(String(b['type'])))) {
      this.hasToolBlocks = true;
    }
  }

  /** A copy of the messages, for one request (the loop goes on appending to its own list). */
  snapshot(): ConversationMessage[] {
    return [...this.messages];
  }

  /** Total characters of content so far. */
  get size(): number {
    return this.chars;
  }

  /** True when the conversation has outgrown its cap. */
  get tooLarge(): boolean {
    return this.chars > this.maxChars;
  }
}

/** The text of content blocks, joined. */
export function textOfBlocks(content: readonly Block[]): string {
  return content
    .map((b) => (b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : ''))
    .filter((t) => t !== '')
    .join('\n\n');
}
