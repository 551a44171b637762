// The file that remembers how wide each agent of a project fans out (fanout-memory.ts), among the
// project's records (`<dataDir>/projects/<slug>/fanout.json`, out of every agent's reach like the
// transcripts). Whatever the file says only sizes how many threads are started ahead, never past
// what a run's caps allow; still it is read as hostile input: a repository that keeps cadre's data
// directory inside itself (config `dataDir`) ships it. So a file that is not a small regular file
// of this user's, is a link, or does not parse is ignored as if absent, and writes are atomic (a
// private temporary file renamed over it) so that concurrent cadre processes never leave half a file.
import { constants } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';

/** Runs kept per agent: the prediction looks at this many of its latest runs. */
export const RUNS_KEPT = 5;
/** Turns kept per run (a fan-out later than this is not remembered). */
export const TURNS_KEPT = 32;
/** Agents kept per project (the least recently run are dropped). */
export const AGENTS_KEPT = 200;
/** Largest width stored (far above maxTasksPerMessage's range: the caps cut it when used). */
export const MAX_WIDTH = 1000;
/** Largest file read: AGENTS_KEPT agents of RUNS_KEPT full runs fit in well under this. */
export const MAX_FANOUT_BYTES = 256 * 1024;

/** One agent's memory: its latest runs, each the delegation blocks of each of its replies. */
export const FanoutAgent = z.strictObject({
  name: z.string().min(1).max(256),
  /** When it last ran (ms since the epoch): the oldest entries go first when the file is full. */
  at: z.number().int().nonnegative(),
  runs: z.array(z.array(z.number().int().min(0).max(MAX_WIDTH)).max(TURNS_KEPT)).max(RUNS_KEPT),
});
/** One agent's memory. */
export type FanoutAgent = z.infer<typeof FanoutAgent>;

/** The file: an array (never an object keyed by agent name, where `__proto__` would be a key). */
export const FanoutFile = z.strictObject({
  version: z.literal(1),
  agents: z.array(FanoutAgent).max(AGENTS_KEPT),
});
/** The file. */
export type FanoutFile = z.infer<typeof FanoutFile>;

/** The agents `file` remembers; none when it is absent, not this user's regular file, too large or bad. */
export async function readFanoutFile(file: string): Promise<FanoutAgent[]> {
  let handle;
  try {
    // No link followed, and a FIFO planted there cannot block the open.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return [];
  }
  try {
    const info = await handle.stat();
    const uid = process.getuid?.();
    if (!info.isFile() || info.size > MAX_FANOUT_BYTES) return [];
    if ((uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) return [];
    const buffer = Buffer.alloc(MAX_FANOUT_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_FANOUT_BYTES) return [];
    const parsed = FanoutFile.safeParse(JSON.parse(buffer.toString('utf8', 0, bytesRead)));
    return parsed.success ? parsed.data.agents : [];
  } catch {
    return [];
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Writes `agents` to `file` atomically; false when it could not (the memory is only a hint). */
export async function writeFanoutFile(file: string, agents: readonly FanoutAgent[]): Promise<boolean> {
  const content: FanoutFile = { version: 1, agents: [...agents] };
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(temp, `${JSON.stringify(content)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, file);
    return true;
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
    return false;
  }
}
