// Reads the `*.md` files of one agents directory tree (list-agent-files.ts finds them), in parallel
// with a bounded number of open files. A missing directory is simply an empty source; unreadable,
// special or oversized files become issues.
import { close, constants, fstat, open, read } from 'node:fs';
import { promisify } from 'node:util';
import type { RegistryIssue } from '../../shared/agent-definition.js';
import { type FoundFile, listAgentFiles } from './list-agent-files.js';
import { MAX_AGENT_FILE_BYTES } from './parse-agent.js';

/** One file's content, or why it could not be read. `relativePath` is set for files found in a directory. */
export type AgentFileRead = ({ content: string } | { error: RegistryIssue }) & {
  path: string;
  relativePath?: string;
};

// Plain descriptors and the callback API: FileHandle bookkeeping and a stat per file cost more
// main-thread time than the parsing itself when a directory holds a thousand agents.
const fdOpen = promisify(open);
const fdStat = promisify(fstat);
const fdClose = promisify(close);
const fdRead = (fd: number, buffer: Buffer, offset: number, length: number, position: number) =>
  new Promise<number>((resolve, reject) =>
    read(fd, buffer, offset, length, position, (error, bytes) => (error ? reject(error) : resolve(bytes))),
  );

/** Most files open at once: far below any descriptor limit, enough to keep the thread pool busy. */
const OPEN_FILES = 32;
/** Files up to this size are read in one call into a reader's reusable buffer, without a stat. */
const SCRATCH_BYTES = 16 * 1024;

/**
 * Lists and reads the `*.md` files under `dir` (subfolders included), sorted by relative path,
 * handing each file to `each` as soon as it is read: parsing one file overlaps reading the next.
 */
export async function readAgentFiles<T>(
  dir: string,
  each: (read: AgentFileRead) => T,
): Promise<{ items: T[]; errors: RegistryIssue[] }> {
  const { files, errors } = await listAgentFiles(dir);
  return { items: await readFound(files, each), errors };
}

/** Reads already listed files, at most OPEN_FILES at once; results keep the order of `files`. */
export async function readFound<T>(
  files: readonly FoundFile[],
  each: (read: AgentFileRead) => T,
): Promise<T[]> {
  const items = new Array<T>(files.length);
  let next = 0;
  const reader = async () => {
    const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
    while (next < files.length) {
      const index = next++;
      const found = files[index] as FoundFile;
      // A symlink may point anywhere (a FIFO, a directory): only those pay for a stat up front.
      const read = await readAgentFile(found.path, found.regular ? scratch : undefined);
      items[index] = each({ ...read, relativePath: found.relativePath });
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPEN_FILES, files.length) }, reader));
  return items;
}

/**
 * Reads one agent file, refusing anything that is not a regular file or is too large. `scratch`
 * (for entries known to be regular files) lets a small file be read with no stat at all.
 */
export async function readAgentFile(file: string, scratch?: Buffer): Promise<AgentFileRead> {
  const fail = (message: string): AgentFileRead => ({ path: file, error: { path: file, message } });
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO named `x.md` must not park a thread-pool thread forever.
    fd = await fdOpen(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return fail(`cannot read: ${(error as Error).message}`);
  }
  try {
    let head = 0;
    if (scratch) {
      head = await fdRead(fd, scratch, 0, scratch.length, 0);
      if (head < scratch.length) return { path: file, content: scratch.toString('utf8', 0, head) };
    }
    const stat = await fdStat(fd);
    if (!stat.isFile()) return fail('not a regular file');
    if (stat.size > MAX_AGENT_FILE_BYTES) {
      const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
      return fail(
        `file is ${mib(stat.size)} MiB, over the ${mib(MAX_AGENT_FILE_BYTES)} MiB limit; not loaded`,
      );
    }
    // The known size plus a byte, to notice a file that grows while it is read.
    const buffer = Buffer.allocUnsafe(Math.max(stat.size, head) + 1);
    if (scratch) scratch.copy(buffer, 0, 0, head);
    let length = head;
    while (length < buffer.length) {
      const bytesRead = await fdRead(fd, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > stat.size) return fail('file changed while being read; not loaded');
    return { path: file, content: buffer.toString('utf8', 0, length) };
  } catch (error) {
    return fail(`cannot read: ${(error as Error).message}`);
  } finally {
    await fdClose(fd).catch(() => undefined);
  }
}
