// Writes one run's transcript: append-only JSONL at `<dir>/<agentId>.jsonl`, one line per event as it
// arrives, closed by the terminal status line. `append` only queues (it is called for every text
// delta); a single write loop drains the queue once the current turn of the event loop is over, so
// the lines of one turn, and those appended while a write is in flight, go out together, in writes
// of about 1 MiB (a longer line goes out in slices). A worker that dies cannot take queued lines
// with it: they live in the host, and `flush()` resolves once every line appended so far has been
// handed to the OS. Nothing in the loop can throw past it: a failed write is kept as the failure
// that `flush()` and `close()` report, and the loop stops.
import type { FileHandle } from 'node:fs/promises';
import { CadreError, isCadreError } from '../../shared/errors.js';
import { serialize, writeLines, type Line } from './serialize.js';
import { transcriptPath, type TranscriptEnd, type TranscriptStatusLine } from './records.js';
import { openSegment, type SegmentSpec, type TranscriptSegment } from './segment.js';

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
  const spec: SegmentSpec = {
    dir,
    file,
    agentId,
    startedAt: clock(),
    clock,
    ...(options.header ? { header: options.header } : {}),
    ...(options.fresh !== undefined ? { fresh: options.fresh } : {}),
  };
  return new QueuedTranscript(file, clock, () => openSegment(spec));
}

/**
 * A transcript whose lines wait in a queue that one write loop drains; every failure is kept as
 * `failure` (and the queue dropped with it), never thrown past the loop.
 */
class QueuedTranscript implements TranscriptWriter {
  readonly ready: Promise<void>;
  private queue: Line[] = [];
  private handle: FileHandle | undefined;
  private writing: Promise<void> | undefined;
  private failure: CadreError | undefined;
  private isClosed = false;
  private closing: Promise<void> | undefined;

  constructor(
    readonly path: string,
    private readonly clock: () => number,
    open: () => Promise<TranscriptSegment>,
  ) {
    // The file is opened, and lines are written, after the current turn of the event loop: a
    // launch posts its run to a worker before the host spends anything on the file system, and the
    // lines of one turn (a worker's batch of events) go out in one write.
    this.ready = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const segment = await open();
      this.handle = segment.handle;
      // The header opens the segment, ahead of whatever was appended while the file was opening.
      this.queue.unshift(...segment.lead);
    })();
    // Callers that never look at `ready` learn of a failure from flush() and close().
    this.ready.catch(() => undefined);
    void this.pump();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  append(record: object): void {
    if (this.isClosed || this.failure !== undefined) return;
    if (this.queue.push(serialize(record, this.clock)) === 1 && this.writing === undefined)
      setImmediate(() => this.pumpIfIdle());
  }

  async flush(): Promise<void> {
    while (this.failure === undefined && (this.writing !== undefined || this.queue.length > 0))
      await this.pump();
    if (this.writing !== undefined) await this.writing;
    if (this.failure) throw this.failure;
  }

  close(end: TranscriptEnd): Promise<void> {
    if (this.closing) return this.closing;
    this.isClosed = true;
    const output = 'output' in end ? end.output : 'agentId' in end ? end : null;
    const line: TranscriptStatusLine = { type: 'status', at: this.clock(), status: end.status, output };
    // The status line is serialised once the lines before it are out: a long result is then held
    // serialised once at a time (the run's agent-end event carries it too).
    const finish = async () => {
      await this.flush().catch(() => undefined);
      if (this.failure === undefined) this.queue.push(serialize(line, this.clock));
      await this.flush();
    };
    this.closing = finish().finally(() => this.handle?.close().catch(() => undefined));
    return this.closing;
  }

  /** Never rejects: whatever goes wrong becomes `failure`, and the queue is dropped with it. */
  private async drain(): Promise<void> {
    try {
      await this.ready;
      while (this.queue.length > 0 && this.handle !== undefined && this.failure === undefined) {
        const lines = this.queue;
        this.queue = [];
        await writeLines(this.handle, lines);
      }
    } catch (error) {
      this.failure ??= isCadreError(error)
        ? error
        : new CadreError('io_error', `cannot write transcript ${this.path}: ${(error as Error).message}`);
    }
    if (this.failure !== undefined) this.queue = [];
  }

  private pump(): Promise<void> {
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
      // Lines appended during the last write's final await are picked up by a new loop.
      if (this.queue.length > 0 && this.failure === undefined) void this.pump();
    });
    return this.writing;
  }

  private pumpIfIdle(): void {
    if (this.writing === undefined && this.queue.length > 0) void this.pump();
  }
}
