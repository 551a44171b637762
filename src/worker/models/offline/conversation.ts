// Reads the conversation the way the offline model needs it: the task (the latest prompt) and the
// tool calls made since, each with what came back. Stateless: everything is in the messages.
import type { ConversationMessage } from '../../../shared/events.js';
import { readQuestion, type QuestionTerms } from './question.js';

/** A tool call the offline model made, with what came back. */
export interface ToolRecord {
  id: string;
  name: string;
  input: Record<string, unknown>;
  content: string;
  isError: boolean;
}

/** What the conversation tells the offline model. */
export interface OfflineState {
  task: string;
  question: QuestionTerms;
  /** How many assistant turns it has taken on this task. */
  phase: number;
  records: ToolRecord[];
}

type Block = Record<string, unknown>;
const blocksOf = (m: ConversationMessage): Block[] =>
  typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
const textOf = (m: ConversationMessage): string =>
  blocksOf(m)
    .map((b) => (b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : ''))
    .join('\n')
    .trim();
const isPrompt = (m: ConversationMessage | undefined): boolean =>
  m !== undefined &&
  m.role === 'user' &&
  textOf(m) !== '' &&
  !blocksOf(m).some((b) => b['type'] === 'tool_result');

/** Reads the task and the tool history out of the conversation. */
export function readState(messages: readonly ConversationMessage[]): OfflineState {
  // The task is the latest prompt; a run of prompts (the task, then a grace note) counts from its first.
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (!isPrompt(messages[i])) continue;
    start = i;
    while (start > 0 && isPrompt(messages[start - 1])) start--;
    break;
  }
  const task = start >= 0 ? textOf(messages[start] as ConversationMessage) : '';
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  const records: ToolRecord[] = [];
  let phase = 0;
  for (const m of messages.slice(start + 1)) {
    if (m.role === 'assistant') phase++;
    for (const b of blocksOf(m)) {
      if (b['type'] === 'tool_use' && typeof b['id'] === 'string') {
        const input =
          typeof b['input'] === 'object' && b['input'] !== null
            ? (b['input'] as Record<string, unknown>)
            : {};
        calls.set(b['id'], { name: String(b['name']), input });
      } else if (b['type'] === 'tool_result' && typeof b['tool_use_id'] === 'string') {
        const call = calls.get(b['tool_use_id']);
        if (call !== undefined)
          records.push({
            id: b['tool_use_id'],
            ...call,
            content: resultText(b['content']),
            isError: b['is_error'] === true,
          });
      }
    }
  }
  return { task, question: readQuestion(task), phase, records };
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c: unknown) =>
      typeof c === 'object' && c !== null && typeof (c as Block)['text'] === 'string'
        ? (c as Block)['text']
        : '',
    )
    .join('\n');
}
