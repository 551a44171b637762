// The batch results file: one JSON line per finished task, appended the moment it ends. Reading it
// back tells a re-run which ids are already done, so a batch resumes after Ctrl-C or a crash.
import { open, readFile, type FileHandle } from 'node:fs/promises';
import type { TaskStatus } from '../../shared/task.js';
import type { BatchResult } from './run-batch.js';

/** The last recorded status of each id in an existing results file. A torn last line is ignored. */
export async function finishedIds(file: string): Promise<Map<string, TaskStatus>> {
  const done = new Map<string, TaskStatus>();
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const row = JSON.parse(line) as { id?: unknown; status?: unknown };
      if (typeof row.id === 'string' && typeof row.status === 'string')
        done.set(row.id, row.status as TaskStatus);
    } catch {
      // A line cut short by a kill: that task runs again.
    }
  }
  return done;
}

/**
 * The results recorded past byte `offset` of `file` (what this invocation already wrote before a
 * restart). Torn or foreign lines are skipped.
 */
export async function resultsSince(file: string, offset: number): Promise<BatchResult[]> {
  const text = await readFile(file).then(
    (b) => b.subarray(Math.min(offset, b.length)).toString('utf8'),
    () => '',
  );
  const rows: BatchResult[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const row = JSON.parse(line) as Partial<BatchResult>;
      if (
        typeof row.id === 'string' &&
        typeof row.status === 'string' &&
        typeof row.durationMs === 'number' &&
        row.usage
      )
        rows.push(row as BatchResult);
    } catch {
      // A line cut short by the crash: that task ran again.
    }
  }
  return rows;
}

/** Appends result lines in order; each write is handed to the OS before the next one starts. */
export class ResultsWriter {
  private chain: Promise<void> = Promise.resolve();

  private constructor(private readonly handle: FileHandle) {}

  /** Opens `file` for appending (created if missing), repairing a torn last line. */
  static async open(file: string): Promise<ResultsWriter> {
    const handle = await open(file, 'a+');
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.write('\n');
    }
    return new ResultsWriter(handle);
  }

  /** Queues one result line. */
  append(result: BatchResult): Promise<void> {
    const line = `${JSON.stringify(result)}\n`;
    this.chain = this.chain.then(() => this.handle.write(line).then(() => undefined));
    return this.chain;
  }

  /** Waits for every queued line, syncs and closes. */
  async close(): Promise<void> {
    await this.chain;
    await this.handle.datasync().catch(() => undefined);
    await this.handle.close();
  }
}
