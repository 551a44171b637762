// Opens one segment of a transcript: the file created (or, on resume, reopened for appending), and
// the lines that must open the segment: the header, after a newline that ends a torn last line.
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { CadreError } from '../../shared/errors.js';
import { TRANSCRIPT_VERSION } from './records.js';
import { serialize, type Line } from './serialize.js';

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

/** An open segment: the file, and the lines that go before anything appended so far. */
export interface TranscriptSegment {
  handle: FileHandle;
  lead: Line[];
}

/** What the segment's header says and how it is opened. */
export interface SegmentSpec {
  dir: string;
  file: string;
  agentId: string;
  /** When the run started (the header's `at`). */
  startedAt: number;
  clock: () => number;
  header?: Record<string, unknown>;
  /** A new run: the file is expected not to exist (created with one call to the OS). */
  fresh?: boolean;
}

/** Opens the segment, or throws `io_error` naming the file (nothing is left open). */
export async function openSegment(spec: SegmentSpec): Promise<TranscriptSegment> {
  const { dir, file } = spec;
  let handle: FileHandle | undefined;
  let size = 0;
  try {
    const created = spec.fresh === true ? await create(dir, file) : undefined;
    if (created) handle = created;
    else {
      await mkdir(dir, { recursive: true });
      handle = await open(file, 'a+');
      size = (await handle.stat()).size;
    }
    // Its own fields come first and win: a file that begins `{"type":"header","version":` is a
    // transcript wherever it is copied (fs/sniff.ts keeps it from the file tools).
    const own = {
      type: 'header',
      version: TRANSCRIPT_VERSION,
      agentId: spec.agentId,
      at: spec.startedAt,
      resumed: size > 0,
    };
    const lead: Line[] = [serialize({ ...own, ...spec.header, ...own }, spec.clock)];
    if (size > 0 && !(await endsWithNewline(handle, size))) lead.unshift('\n');
    return { handle, lead };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    throw new CadreError('io_error', `cannot open transcript ${file}: ${(error as Error).message}`);
  }
}
