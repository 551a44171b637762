// The audit log's hash chain, on disk. Every line is a JSON object whose first field, `prev`, is the
// SHA-256 of the line before it (of its bytes, without the newline; 64 zeros for the first line), so
// changing, removing, inserting or reordering a line breaks the link to the next one. A checkpoint
// beside the log (`<log>.head`: its size and last line's hash after every append) catches lines cut
// from the end. Appends from several processes take turns under a lock file holding the writer's
// pid, so their lines chain onto each other. The calls are synchronous: an append is a handful of
// small calls, and the same code must run in a process's `exit` handler.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** The `prev` of a log's first line. */
export const GENESIS = '0'.repeat(64);
/** A lock older than this is taken over even if its pid looks alive (a pid reused in another namespace). */
const STALE_LOCK_MS = 2000;
/** How long an append waits by default for another writer before it gives up (the lines stay queued). */
export const LOCK_WAIT_MS = 5000;

/** The SHA-256 (hex) of a line's bytes. */
export function hashLine(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `<log>.head`: the checkpoint of what cadre last appended. */
function headPath(log: string): string {
  return `${log}.head`;
}

/** The checkpoint: the log's size after cadre's last append, and the hash of its last line then. */
export interface AuditHead {
  bytes: number;
  last: string;
}

/** What an append remembers of the file between appends, to skip re-reading its tail. */
export interface ChainState {
  size: number;
  last: string;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function lockHolderGone(lock: string): boolean {
  try {
    const st = fs.statSync(lock);
    if (Date.now() - st.mtimeMs > STALE_LOCK_MS) return true;
    const pid = Number(fs.readFileSync(lock, 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - st.mtimeMs > 100;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // ESRCH: no such process. ENOENT: released meanwhile. EPERM: alive, someone else's.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Thrown when another process holds the log's lock past the wait allowed. */
export class AuditLockBusy extends Error {
  constructor(lock: string) {
    super(`the audit log is locked by another process (${lock})`);
    this.name = 'AuditLockBusy';
  }
}

/** Runs `work` holding `<log>.lock`; throws `AuditLockBusy` when it stays taken for `waitMs`. */
function withLock<T>(log: string, work: () => T, waitMs: number): T {
  const lock = `${log}.lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockHolderGone(lock)) fs.rmSync(lock, { force: true });
      else if (Date.now() >= deadline) throw new AuditLockBusy(lock);
      else pause(2);
    }
  }
  try {
    return work();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** The hash of the file's last line and whether that line lacks its newline (a torn write). */
function tailOf(fd: number, size: number): { last: string; torn: boolean } {
  if (size === 0) return { last: GENESIS, torn: false };
  const endByte = Buffer.alloc(1);
  fs.readSync(fd, endByte, 0, 1, size - 1);
  const torn = endByte[0] !== 0x0a;
  const end = torn ? size : size - 1;
  // Reads backwards in growing windows until the line's start (a newline, or the file's start).
  for (let window = 64 * 1024; ; window *= 4) {
    const from = Math.max(0, end - window);
    const buf = Buffer.alloc(end - from);
    fs.readSync(fd, buf, 0, buf.length, from);
    const nl = buf.lastIndexOf(0x0a);
    if (nl !== -1 || from === 0) return { last: hashLine(buf.subarray(nl + 1)), torn };
  }
}

/**
 * Appends `bodies` (each a JSON object's text, `{...}`) to the log at `file`, chained: each line
 * gets `prev` as its first field. A torn last line (a crash mid-write) is ended first and chained
 * over. Updates the checkpoint. Waits up to `waitMs` (blocking) for another writer's lock, then
 * throws `AuditLockBusy`. Throws on I/O failure; `state` then keeps its old value.
 */
export function appendChained(
  file: string,
  bodies: readonly string[],
  state: ChainState | undefined,
  waitMs = LOCK_WAIT_MS,
): ChainState {
  return withLock(
    file,
    () => {
      const fd = fs.openSync(file, 'a+');
      try {
        const size = fs.fstatSync(fd).size;
        // The file as this process left it: its last hash is known.
        const tail =
          state !== undefined && state.size === size ? { last: state.last, torn: false } : tailOf(fd, size);
        let prev = tail.last;
        const parts: string[] = tail.torn ? ['\n'] : [];
        for (const body of bodies) {
          const line = `{"prev":"${prev}",${body.slice(1)}`;
          parts.push(line, '\n');
          prev = hashLine(Buffer.from(line, 'utf8'));
        }
        const text = Buffer.from(parts.join(''), 'utf8');
        fs.writeSync(fd, text);
        const next: ChainState = { size: size + text.length, last: prev };
        writeHead(file, { bytes: next.size, last: next.last });
        return next;
      } finally {
        fs.closeSync(fd);
      }
    },
    waitMs,
  );
}

/** The checkpoint's size on disk: one JSON line padded with spaces, so each write replaces it whole. */
const HEAD_BYTES = 128;

/**
 * Writes the checkpoint in place. Every version has the same length, so a write never leaves an old
 * tail behind, and it fits in one block. (Writing a new file and renaming it over the old one makes
 * ext4 flush it: about 2 ms on every append, against 12 µs for this.)
 */
function writeHead(file: string, head: AuditHead): void {
  const text = JSON.stringify(head).padEnd(HEAD_BYTES - 1) + '\n';
  const fd = fs.openSync(headPath(file), fs.constants.O_WRONLY | fs.constants.O_CREAT);
  try {
    fs.writeSync(fd, text, 0);
    if (fs.fstatSync(fd).size !== HEAD_BYTES) fs.ftruncateSync(fd, HEAD_BYTES);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads the checkpoint of `file`: undefined when there is none, 'unreadable' when it is not one. */
export function readHead(file: string): AuditHead | 'unreadable' | undefined {
  let text: string;
  try {
    text = fs.readFileSync(headPath(file), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unreadable';
  }
  try {
    const head = JSON.parse(text) as Partial<AuditHead>;
    if (Number.isSafeInteger(head.bytes) && typeof head.last === 'string' && /^[0-9a-f]{64}$/.test(head.last))
      return { bytes: head.bytes as number, last: head.last };
  } catch {
    // Not JSON: reported as unreadable below.
  }
  return 'unreadable';
}
