// Makes a recorded conversation safe to send again. A run killed between a model turn and its tool
// results leaves `tool_use` blocks with no `tool_result`, which the Messages API rejects; those
// calls are closed with error results that say the run was interrupted. Before that, `checkReplay`
// refuses a transcript that does not replay into a valid conversation, naming the line.
import { CadreError } from '../../shared/errors.js';
import { joinUserMessages } from '../../shared/conversation.js';
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

/** A conversation ready to resume, and what was repaired to get it. */
export interface Replay {
  messages: ConversationMessage[];
  /** One sentence per safe repair (a torn last line dropped, interrupted tool calls closed). */
  warnings: string[];
}

/** What `checkReplay` reads: the parts of a transcript read back (reader.ts) it judges. */
export interface RecordedConversation {
  path: string;
  startsWithHeader: boolean;
  recorded: readonly { message: ConversationMessage; line: number; segment: number }[];
  problems: readonly { line: number; message: string }[];
  torn: boolean;
}

const ids = (blocks: readonly Record<string, unknown>[], type: 'tool_use' | 'tool_result') =>
  blocks.flatMap((b) => {
    const id = type === 'tool_use' ? b.id : b.tool_use_id;
    return b.type === type && typeof id === 'string' ? [id] : [];
  });

/**
 * Checks that a transcript replays into a conversation the Messages API accepts: a cadre
 * transcript, no damaged line (it may have held a message), roles alternating from a user message,
 * and every tool call answered by the next message, which answers nothing else. Repairs only what
 * is safe — a torn last line is dropped, the tool calls of the last turn left without results by a
 * kill are closed — and says so; anything else throws `invalid_input` naming the file and line.
 */
export function checkReplay(read: RecordedConversation): Replay {
  const refuse = (line: number, why: string) =>
    new CadreError('invalid_input', `cannot resume from ${read.path}: line ${line}: ${why}`, { line });
  if (!read.startsWithHeader)
    throw refuse(1, 'this is not a cadre transcript (its first line is not a transcript header)');
  const warnings: string[] = [];
  for (const problem of read.problems) {
    const last = read.torn && problem === read.problems[read.problems.length - 1];
    if (!last)
      throw refuse(
        problem.line,
        `${problem.message}; a message may be missing, so the conversation cannot be rebuilt safely`,
      );
    warnings.push(`line ${problem.line} of the transcript was cut short and is left out`);
  }
  const messages: ConversationMessage[] = [];
  const lines: number[] = [];
  read.recorded.forEach(({ message, line, segment }, i) => {
    const previous = read.recorded[i - 1];
    // A resume replays what the run before it left, repaired as it was then: the tool calls cut
    // off by the end of that run closed as interrupted.
    if (previous !== undefined && segment > previous.segment && message.role === 'user') {
      const closed = closeDanglingToolUses(messages);
      if (closed.messages.length > messages.length) lines.push(line);
      messages.splice(0, messages.length, ...closed.messages);
    }
    // User messages in a row form one turn, as the API takes them (a grace note after the
    // prompt, a resume's prompt after a turn never answered).
    const last = messages.at(-1);
    if (message.role === 'user' && last?.role === 'user') {
      const before = blocks(messages.at(-2));
      const stray = ids(blocks(message), 'tool_result').find((id) => !ids(before, 'tool_use').includes(id));
      if (stray !== undefined)
        throw refuse(line, `a tool result for ${stray}, which the message before it did not call`);
      messages[messages.length - 1] = joinUserMessages(last, message);
      return;
    }
    const expected = messages.length % 2 === 0 ? 'user' : 'assistant';
    if (message.role !== expected)
      throw refuse(
        line,
        messages.length === 0
          ? 'the conversation does not start with a user message'
          : 'two assistant messages in a row; the user message between them is missing',
      );
    const asked =
      message.role === 'user' ? new Set(ids(blocks(messages.at(-1)), 'tool_use')) : new Set<string>();
    const answered = ids(blocks(message), 'tool_result');
    const stray = answered.find((id) => !asked.has(id));
    if (stray !== undefined)
      throw refuse(line, `a tool result for ${stray}, which the message before it did not call`);
    const unanswered = [...asked].filter((id) => !answered.includes(id));
    // The last message may lack results (closed below); a message with more after it may not.
    if (unanswered.length > 0 && i < read.recorded.length - 1)
      throw refuse(line, `the tool call(s) ${unanswered.join(', ')} of line ${lines.at(-1)} have no result`);
    messages.push(message);
    lines.push(line);
  });
  const repaired = closeDanglingToolUses(messages);
  if (repaired.closed > 0)
    warnings.push(
      `${repaired.closed} tool call(s) of the last turn had no result (the run ended first); they are closed as interrupted`,
    );
  return { messages: repaired.messages, warnings };
}
