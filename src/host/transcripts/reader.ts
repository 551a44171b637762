// Reads a transcript back, streaming it line by line: the header, the events, the conversation
// rebuilt from `message-append` events (ready to resume), and the terminal status if the last
// segment ended. A torn last line (the host died mid-write) is tolerated and reported.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { CadreError } from '../../shared/errors.js';
import { ConversationMessage, type AgentEvent } from '../../shared/events.js';
import { transcriptPath, type TranscriptHeader, type TranscriptStatusLine } from './records.js';
import { closeDanglingToolUses } from './resume.js';

/** A transcript, read back. */
export interface TranscriptRead {
  path: string;
  /** The first header (the original run). */
  header?: TranscriptHeader;
  /** Every event line, in order (empty when read with `events: false`). */
  events: AgentEvent[];
  /** The conversation for resume: every appended message, with unanswered tool calls closed. */
  messages: ConversationMessage[];
  /** The status line of the last segment; absent when it never ended (killed host, or still running). */
  status?: TranscriptStatusLine;
  /** Segments: 1 for the first run, +1 for each resume. */
  segments: number;
  /** The last line was cut short. */
  torn: boolean;
  /** Lines that were not JSON or not an object, besides a torn last line. */
  badLines: number;
  /** The conversation stopped mid tool call; `messages` closes those calls with error results. */
  interrupted: boolean;
}

/** Options for `readTranscript`. */
export interface ReadTranscriptOptions {
  /** Keep the event list (default true); false saves memory when only the conversation matters. */
  events?: boolean;
}

/** Reads and parses a transcript. Rejects with `not_found` when the file does not exist. */
export async function readTranscript(
  file: string,
  options: ReadTranscriptOptions = {},
): Promise<TranscriptRead> {
  const keepEvents = options.events ?? true;
  const out: TranscriptRead = {
    path: file,
    events: [],
    messages: [],
    segments: 0,
    torn: false,
    badLines: 0,
    interrupted: false,
  };
  const take = (text: string, last: boolean) => {
    if (text.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      if (last) out.torn = true;
      else out.badLines++;
      return;
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      out.badLines++;
      return;
    }
    const type = (record as { type?: unknown }).type;
    if (type === 'header') {
      out.header ??= record as TranscriptHeader;
      out.segments++;
      delete out.status;
      return;
    }
    if (type === 'status') {
      out.status = record as TranscriptStatusLine;
      return;
    }
    if (keepEvents) out.events.push(record as AgentEvent);
    if (type === 'message-append') {
      const message = ConversationMessage.safeParse((record as { message?: unknown }).message);
      if (message.success) out.messages.push(message.data);
      else out.badLines++;
    }
  };

  let carry = '';
  try {
    const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = carry + chunk;
      let start = 0;
      for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
        take(text.slice(start, nl), false);
        start = nl + 1;
      }
      carry = text.slice(start);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CadreError('not_found', `no transcript at ${file}`);
    throw new CadreError('io_error', `cannot read transcript ${file}: ${(error as Error).message}`);
  }
  take(carry, true);
  const repaired = closeDanglingToolUses(out.messages);
  out.interrupted = repaired.closed > 0;
  out.messages = repaired.messages;
  return out;
}

/** The transcript path of `agentId` in `dir` if it exists. */
export async function findTranscript(dir: string, agentId: string): Promise<string | undefined> {
  const file = transcriptPath(dir, agentId);
  const info = await stat(file).catch(() => undefined);
  return info?.isFile() ? file : undefined;
}
