// Conversation rules both sides apply: the Messages API expects user and assistant turns to
// alternate, with a user turn's tool results before anything else in it.
import type { ConversationMessage } from './events.js';

/** Two user messages as one: tool results first, then the rest in order. */
export function joinUserMessages(a: ConversationMessage, b: ConversationMessage): ConversationMessage {
  const asBlocks = (m: ConversationMessage) =>
    typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  const all = [...asBlocks(a), ...asBlocks(b)];
  return {
    role: 'user',
    content: [
      ...all.filter((x) => x['type'] === 'tool_result'),
      ...all.filter((x) => x['type'] !== 'tool_result'),
    ],
  };
}
