// Writes one run's transcript: append-only JSONL at `<dir>/<agentId>.jsonl`, one line per event as it
// arrives, closed by the terminal status line. `append` only queues (it is called for every text
// delta); a single write loop drains the queue once the current turn of the event loop is over, so
// the lines of one turn, and those appended while a write is in flight, go out together, in writes
// of about 1 MiB (a longer line goes out in slices). A worker that dies cannot take queued lines
// with it: they live in the host, and `flush()` resolves once every line appended so far has been
// handed to the OS. Nothing in the loop can throw past it: a failed write is kept as the failure
// that `flush()` and `close()` report, and the loop stops.
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { CadreError, isCadreError } from '../../shared/errors.js';
import { serialize, writeLines, type Line } from './serialize.js';
import {
  TRANSCRIPT_VERSION,
  transcriptPath,
  type TranscriptEnd,
  type TranscriptStatusLine,
} from './records.js';

/** An open transcript. */
export interface TranscriptWriter {
  readonly path: string;
  /** Resolves once the file is open; rejects with `io_error` when it cannot be opened. */
  readonly ready: Promise<void>;
  /** Queues one record (an AgentEvent, usually) as one line. Cheap, synchronous, never throws. */
  append(record: object): void;
  /** Resolves when everything appended so far is written; rejects with `io_error` if a write failed. */
  flush(): Promise<void>;
  /** Appends the terminal status line, flushes and closes. Later appends are ignored. */
  close(end: TranscriptEnd): Promise<void>;
  readonly closed: boolean;
}

/** Options for `openTranscript`. */
export interface OpenTranscriptOptions {
  /** Extra header fields (agentType, parentId, model, cwd...). */
  header?: Record<string, unknown>;
  clock?: () => number;
  /**
   * A new run (not a resume): the file is expected not to exist, and creating it is one call to
   * the OS instead of three. An existing file is still appended to.
   */
  fresh?: boolean;
}

/** Is the last byte of a non-empty file a newline? (A crash mid-line leaves a torn tail.) */
async function endsWithNewline(handle: FileHandle, size: number): Promise<boolean> {
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, size - 1);
  return byte[0] === 0x0a;
}

/** Creates `file` exclusively (and `dir` if missing); undefined when the file already exists. */
async function create(dir: string, file: string): Promise<FileHandle | undefined> {
  const attempt = () =>
    open(file, 'ax').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return undefined;
      throw error;
    });
  try {
    return await attempt();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dir, { recursive: true });
  return attempt();
}

/**
 * Opens `<dir>/<agentId>.jsonl` for appending (creating `dir`), writing a header line. Reopening an
 * existing transcript (resume) appends a new segment; a torn last line is ended first so the new
 * lines stay parseable.
 */
export async function openTranscript(
  dir: string,
  agentId: string,
  options: OpenTranscriptOptions = {},
): Promise<TranscriptWriter> {
  const writer = startTranscript(dir, agentId, options);
  await writer.ready;
  return writer;
}

/**
 * As `openTranscript`, but returns at once: lines appended before the file is open wait in memory
 * and are written, header first, once it is. A launch does not wait for the file system (on a
 * busy host each call to it costs a trip through libuv's thread pool); `ready` says whether the
 * file could be opened.
 */
export function startTranscript(
  dir: string,
  agentId: string,
  options: OpenTranscriptOptions = {},
): TranscriptWriter {
  const file = transcriptPath(dir, agentId);
  const clock = options.clock ?? Date.now;
  const startedAt = clock();
  let queue: Line[] = [];
  let handle: FileHandle | undefined;
  // The file is opened, and lines are written, after the current turn of the event loop: a launch
  // posts its run to a worker before the host spends anything on the file system, and the lines
  // of one turn (a worker's batch of events) go out in one write.
  const ready = (async () => {
    await new Promise((resolve) => setImmediate(resolve));
    let size = 0;
    try {
      const created = options.fresh === true ? await create(dir, file) : undefined;
      if (created) handle = created;
      else {
        await mkdir(dir, { recursive: true });
        handle = await open(file, 'a+');
        size = (await handle.stat()).size;
      }
      // The header opens the segment, ahead of whatever was appended while the file was opening.
      // Its own fields come first and win: a file that begins `{"type":"header","version":` is a
      // transcript wherever it is copied (fs/sniff.ts keeps it from the file tools).
      const own = { type: 'header', version: TRANSCRIPT_VERSION, agentId, at: startedAt, resumed: size > 0 };
      const header = { ...own, ...options.header, ...own };
      queue.unshift(serialize(header, clock));
      if (size > 0 && !(await endsWithNewline(handle, size))) queue.unshift('\n');
    } catch (error) {
      await handle?.close().catch(() => undefined);
      handle = undefined;
      throw new CadreError('io_error', `cannot open transcript ${file}: ${(error as Error).message}`);
    }
  })();

  let writing: Promise<void> | undefined;
  let failure: CadreError | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;

  // Never rejects: whatever goes wrong becomes `failure`, and the queue is dropped with it.
  const drain = async (): Promise<void> => {
    try {
      await ready;
      while (queue.length > 0 && handle !== undefined && failure === undefined) {
        const lines = queue;
        queue = [];
        await writeLines(handle, lines);
      }
    } catch (error) {
      failure ??= isCadreError(error)
        ? error
        : new CadreError('io_error', `cannot write transcript ${file}: ${(error as Error).message}`);
    }
    if (failure !== undefined) queue = [];
  };
  const pump = (): Promise<void> => {
    writing ??= drain().finally(() => {
      writing = undefined;
      // Lines appended during the last write's final await are picked up by a new loop.
      if (queue.length > 0 && failure === undefined) void pump();
    });
    return writing;
  };
  const flush = async (): Promise<void> => {
    while (failure === undefined && (writing !== undefined || queue.length > 0)) await pump();
    if (writing !== undefined) await writing;
    if (failure) throw failure;
  };
  const pumpIfIdle = () => {
    if (writing === undefined && queue.length > 0) void pump();
  };
  // Callers that never look at `ready` learn of a failure from flush() and close().
  ready.catch(() => undefined);
  void pump();

  return {
    path: file,
    ready,
    get closed() {
      return closed;
    },
    append(record) {
      if (closed || failure !== undefined) return;
      if (queue.push(serialize(record, clock)) === 1 && writing === undefined) setImmediate(pumpIfIdle);
    },
    flush,
    close(end) {
      if (closing) return closing;
      closed = true;
      const output = 'output' in end ? end.output : 'agentId' in end ? end : null;
      const line: TranscriptStatusLine = { type: 'status', at: clock(), status: end.status, output };
      // The status line is serialised once the lines before it are out: a long result is then
      // held serialised once at a time (the run's agent-end event carries it too).
      const finish = async () => {
        await flush().catch(() => undefined);
        if (failure === undefined) queue.push(serialize(line, clock));
        await flush();
      };
      closing = finish().finally(() => handle?.close().catch(() => undefined));
      return closing;
    },
  };
}
