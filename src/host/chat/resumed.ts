// What a resumed chat shows of its earlier conversation: the text of each message, read back
// from the main agent's transcript (tool calls and results are left out).
import type { ChatItem } from '../ui/chat-state.js';
import { readTranscript } from '../transcripts/index.js';

/** The conversation's messages as chat items, oldest first; undefined when the transcript cannot be read. */
export async function conversationItems(transcript: string): Promise<Omit<ChatItem, 'id'>[] | undefined> {
  const read = await readTranscript(transcript, { events: false }).catch(() => undefined);
  if (!read) return undefined;
  const items: Omit<ChatItem, 'id'>[] = [];
  for (const m of read.messages) {
    const text =
      typeof m.content === 'string'
        ? m.content
        : m.content
            .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
            .join('')
            .trim();
    if (text !== '') items.push({ kind: m.role === 'user' ? 'user' : 'assistant', text });
  }
  return items;
}
