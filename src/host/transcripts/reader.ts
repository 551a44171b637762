// Reads a transcript back, streaming it line by line: the header, the events, the conversation
// rebuilt from `message-append` events (ready to resume), and the terminal status if the last
// segment ended. A torn last line (the host died mid-write) is tolerated and reported; so is every
// other line that is not a record, by number, for resume to judge (resume.ts). A line longer than
// MAX_TRANSCRIPT_LINE_BYTES is counted, never held.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { CadreError } from '../../shared/errors.js';
import { ConversationMessage, type AgentEvent } from '../../shared/events.js';
import { transcriptPath, type TranscriptHeader, type TranscriptStatusLine } from './records.js';
import { closeDanglingToolUses } from './resume.js';
import { MAX_TRANSCRIPT_LINE_BYTES } from './serialize.js';

/** A line that is not a usable record: where, and why. */
interface TranscriptProblem {
  /** 1-based. */
  line: number;
  message: string;
}

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
  /** Every appended message as recorded (before any repair), with its line and segment (1-based). */
  recorded: { message: ConversationMessage; line: number; segment: number }[];
  /** Lines that were not usable records (the torn last line included), in order. */
  problems: TranscriptProblem[];
  /** The first line is a transcript header. */
  startsWithHeader: boolean;
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
    recorded: [],
    problems: [],
    startsWithHeader: false,
  };
  const bad = (line: number, message: string, last: boolean) => {
    if (last) out.torn = true;
    else out.badLines++;
    out.problems.push({ line, message });
  };
  const take = (bytes: Buffer | undefined, size: number, line: number, last: boolean) => {
    if (bytes === undefined)
      return bad(
        line,
        `the line is ${size} bytes, over the ${MAX_TRANSCRIPT_LINE_BYTES}-byte line cap`,
        last,
      );
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      return bad(line, last ? 'the last line is cut short' : 'the line is not JSON', last);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      return bad(line, 'the line is not a JSON object', false);
    const type = (record as { type?: unknown }).type;
    if (line === 1) out.startsWithHeader = type === 'header';
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
      if (message.success) out.recorded.push({ message: message.data, line, segment: out.segments });
      else bad(line, 'a message-append record without a valid message', false);
    }
  };

  try {
    await eachLine(file, take);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CadreError('not_found', `no transcript at ${file}`);
    throw new CadreError('io_error', `cannot read transcript ${file}: ${(error as Error).message}`);
  }
  const repaired = closeDanglingToolUses(out.recorded.map((r) => r.message));
  out.interrupted = repaired.closed > 0;
  out.messages = repaired.messages;
  return out;
}

/** Calls `take` for each line (its bytes, or undefined past the cap), the last one flagged. */
async function eachLine(
  file: string,
  take: (bytes: Buffer | undefined, size: number, line: number, last: boolean) => void,
): Promise<void> {
  let parts: Buffer[] = [];
  let size = 0;
  let line = 0;
  const end = (last: boolean) => {
    line++;
    take(size > MAX_TRANSCRIPT_LINE_BYTES ? undefined : Buffer.concat(parts, size), size, line, last);
    parts = [];
    size = 0;
  };
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let at = 0;
    for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
      if (size + nl - at <= MAX_TRANSCRIPT_LINE_BYTES) parts.push(chunk.subarray(at, nl));
      size += nl - at;
      end(false);
      at = nl + 1;
    }
    if (at < chunk.length) {
      if (size + chunk.length - at <= MAX_TRANSCRIPT_LINE_BYTES) parts.push(Buffer.from(chunk.subarray(at)));
      else parts = [];
      size += chunk.length - at;
    }
  }
  if (size > 0) end(true);
}

/** The transcript path of `agentId` in `dir` if it exists. */
export async function findTranscript(dir: string, agentId: string): Promise<string | undefined> {
  const file = transcriptPath(dir, agentId);
  const info = await stat(file).catch(() => undefined);
  return info?.isFile() ? file : undefined;
}
