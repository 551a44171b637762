// The batch results file: one JSON line per finished task, appended the moment it ends. Reading it
// back tells a re-run which ids are already done, so a batch resumes after Ctrl-C or a crash. It is
// read line by line (a results file can outgrow any one string), and a line that is not a result
// (cut short by a kill, or a full disk) is moved to `<file>.torn` so the file stays valid JSONL.
import { createReadStream } from 'node:fs';
import { appendFile, open, rename, type FileHandle } from 'node:fs/promises';
import { CadreError } from '../../shared/errors.js';
import type { TaskStatus } from '../../shared/task.js';
import type { BatchResult } from './run-batch.js';

/** The longest results line read back; a longer one is treated as not a result. */
const MAX_RESULT_LINE_BYTES = 64 * 1024 * 1024;

function parseRow(bytes: Buffer): Partial<BatchResult> | undefined {
  try {
    const row = JSON.parse(bytes.toString('utf8')) as unknown;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) return undefined;
    const { id, status } = row as { id?: unknown; status?: unknown };
    return typeof id === 'string' && typeof status === 'string' ? (row as Partial<BatchResult>) : undefined;
  } catch {
    return undefined;
  }
}

/** One non-blank line: its bytes (absent past the cap), number (1-based), and whether a newline ended it. */
interface Line {
  bytes: Buffer | undefined;
  size: number;
  line: number;
  complete: boolean;
}

const isBlank = (bytes: Buffer) => bytes.toString('utf8').trim() === '';

/**
 * Calls `visit` for each non-blank line from byte `offset` on, waiting for what it returns before
 * the next read: a line longer than the cap is counted, never held.
 */
async function eachLine(file: string, offset: number, visit: (line: Line) => unknown): Promise<void> {
  let parts: Buffer[] = [];
  let size = 0;
  let line = 0;
  const take = async (complete: boolean) => {
    line++;
    const bytes = size > MAX_RESULT_LINE_BYTES ? undefined : Buffer.concat(parts, size);
    const taken = size;
    parts = [];
    size = 0;
    if (bytes === undefined || !isBlank(bytes)) await visit({ bytes, size: taken, line, complete });
  };
  const stream = createReadStream(file, { start: offset, highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let at = 0;
    for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
      if (size <= MAX_RESULT_LINE_BYTES) parts.push(chunk.subarray(at, nl));
      size += nl - at;
      await take(true);
      at = nl + 1;
    }
    if (at < chunk.length) {
      if (size <= MAX_RESULT_LINE_BYTES) parts.push(Buffer.from(chunk.subarray(at)));
      size += chunk.length - at;
    }
  }
  if (size > 0) await take(false);
}

const rowOf = (line: Line) => (line.bytes === undefined ? undefined : parseRow(line.bytes));

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** The last recorded status of each id in a results file (a missing file has none). */
export async function finishedIds(file: string): Promise<Map<string, TaskStatus>> {
  const done = new Map<string, TaskStatus>();
  try {
    await eachLine(file, 0, (line) => {
      const row = rowOf(line);
      if (row?.id !== undefined && row.status !== undefined) done.set(row.id, row.status);
    });
  } catch (error) {
    if (!missing(error)) throw readError(file, error);
  }
  return done;
}

/**
 * The results recorded past byte `offset` of `file` (what this invocation already wrote before a
 * restart). Lines that are not complete results are skipped.
 */
export async function resultsSince(file: string, offset: number): Promise<BatchResult[]> {
  const rows: BatchResult[] = [];
  await eachLine(file, offset, (line) => {
    const row = rowOf(line);
    if (row && typeof row.durationMs === 'number' && row.usage) rows.push(row as BatchResult);
  }).catch(() => undefined);
  return rows;
}

/** What `repairResults` did: the lines it moved to `<file>.torn`, by line number. */
export interface RepairReport {
  moved: number[];
  tornPath: string;
}

/**
 * Makes `file` valid JSONL again: every line that is not a result (a line cut short by a kill or
 * a full disk, or one an older version "repaired" by ending it) is appended to `<file>.torn` and
 * removed from the file. A last result line missing only its newline gets one. Only the batch
 * that holds the file's lock may call this.
 */
export async function repairResults(file: string): Promise<RepairReport> {
  const tornPath = `${file}.torn`;
  const bad: number[] = [];
  let lastComplete = true;
  try {
    await eachLine(file, 0, (line) => {
      if (rowOf(line) === undefined) bad.push(line.line);
      lastComplete = line.complete;
    });
  } catch (error) {
    if (missing(error)) return { moved: [], tornPath };
    throw readError(file, error);
  }
  if (bad.length === 0) {
    if (!lastComplete)
      await appendFile(file, '\n').catch((error: unknown) => Promise.reject(writeError(file, error)));
    return { moved: [], tornPath };
  }
  await rewriteWithout(file, tornPath, new Set(bad));
  return { moved: bad, tornPath };
}

/** Copies `file` without the lines in `drop` (which go to `tornPath`), then puts the copy in its place. */
async function rewriteWithout(file: string, tornPath: string, drop: ReadonlySet<number>): Promise<void> {
  const temp = `${file}.repair-${process.pid}`;
  const out = await open(temp, 'w').catch((error: unknown) => Promise.reject(writeError(file, error)));
  const torn = await open(tornPath, 'a').catch(async (error: unknown) => {
    await out.close();
    return Promise.reject(writeError(tornPath, error));
  });
  try {
    await eachLine(file, 0, async (line) => {
      const moved = drop.has(line.line);
      const bytes =
        line.bytes ?? Buffer.from(`(line ${line.line} of ${file}: ${line.size} bytes, too long to keep)`);
      await (moved ? torn : out).write(Buffer.concat([bytes, Buffer.from('\n')]));
    });
    await out.sync();
  } catch (error) {
    throw writeError(file, error);
  } finally {
    await out.close().catch(() => undefined);
    await torn.close().catch(() => undefined);
  }
  await rename(temp, file).catch((error: unknown) => Promise.reject(writeError(file, error)));
}

function readError(file: string, error: unknown): CadreError {
  return new CadreError('io_error', `cannot read results file ${file}: ${(error as Error).message}`);
}

function writeError(file: string, error: unknown): CadreError {
  return new CadreError('io_error', `cannot write results file ${file}: ${(error as Error).message}`);
}

/**
 * Appends result lines in order; each write is handed to the OS before the next one starts. The
 * first failed write fails that append and every later one with an `io_error` naming the file.
 */
export class ResultsWriter {
  private chain: Promise<void> = Promise.resolve();
  private failure: CadreError | undefined;

  private constructor(
    private readonly handle: FileHandle,
    readonly file: string,
  ) {}

  /** Opens `file` for appending (created if missing). */
  static async open(file: string): Promise<ResultsWriter> {
    const handle = await open(file, 'a').catch((error: unknown) => Promise.reject(writeError(file, error)));
    return new ResultsWriter(handle, file);
  }

  /** Queues one result line; rejects with `io_error` when it (or an earlier one) could not be written. */
  append(result: BatchResult): Promise<void> {
    const line = `${JSON.stringify(result)}\n`;
    this.chain = this.chain.then(async () => {
      if (this.failure) throw this.failure;
      try {
        await this.handle.write(line);
      } catch (error) {
        this.failure = writeError(this.file, error);
        throw this.failure;
      }
    });
    return this.chain;
  }

  /** Waits for the queued lines, syncs and closes. Never rejects: a write failure was already reported. */
  async close(): Promise<void> {
    await this.chain.catch(() => undefined);
    await this.handle.datasync().catch(() => undefined);
    await this.handle.close().catch(() => undefined);
  }
}
