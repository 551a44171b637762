// Makes a recorded conversation safe to send again. A run killed between a model turn and its tool
// results leaves `tool_use` blocks with no `tool_result`, which the Messages API rejects; those
// calls are closed with error results that say the run was interrupted.
import type { ConversationMessage } from '../../shared/events.js';

/** The text given to the model for a tool call cut off by the end of the run. */
export const INTERRUPTED_RESULT =
  'interrupted: the run ended before this tool call returned; it may or may not have taken effect';

function blocks(message: ConversationMessage | undefined): Record<string, unknown>[] {
  return message && Array.isArray(message.content) ? message.content : [];
}

/**
 * Closes the tool calls of the last assistant turn that have no result. Returns the conversation
 * (a new array; the input is not changed) and how many calls were closed.
 */
export function closeDanglingToolUses(messages: readonly ConversationMessage[]): {
  messages: ConversationMessage[];
  closed: number;
} {
  const out = [...messages];
  let turn = out.length - 1;
  while (turn >= 0 && out[turn]?.role !== 'assistant') turn--;
  const assistant = out[turn];
  const uses = blocks(assistant).filter((b) => b.type === 'tool_use' && typeof b.id === 'string');
  if (uses.length === 0) return { messages: out, closed: 0 };
  const answer = out[turn + 1];
  const answered = new Set(blocks(answer).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
  const missing = uses
    .filter((u) => !answered.has(u.id))
    .map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: INTERRUPTED_RESULT, is_error: true }));
  if (missing.length === 0) return { messages: out, closed: 0 };
  if (answer === undefined) {
    out.push({ role: 'user', content: missing });
  } else {
    // Results lead the user turn, as the API expects; any text the user added follows them.
    const content =
      typeof answer.content === 'string' ? [{ type: 'text', text: answer.content }] : answer.content;
    const results = content.filter((b) => b.type === 'tool_result');
    const rest = content.filter((b) => b.type !== 'tool_result');
    out[turn + 1] = { role: 'user', content: [...results, ...missing, ...rest] };
  }
  return { messages: out, closed: missing.length };
}
