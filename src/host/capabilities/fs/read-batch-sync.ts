// The body of a batch read, with synchronous calls: open, check what was opened, fstat, one read,
// close. It runs on the host's I/O thread (io-thread.ts), never on the host's event loop: five
// syscalls in a row cost a few microseconds, where five trips through libuv's pool cost tens.
import fs, { constants } from 'node:fs';
import { fsError } from './errors.js';
import { openedPathSync, racedMessage } from './pin.js';
import { looksBinary } from './read.js';

/** What reading one file gave: its text, or why it was skipped. */
export type ReadOutcome = { ok: true; content: string; mtimeMs: number } | { ok: false; reason: string };

function readOpened(fd: number, real: string, maxBytes: number): ReadOutcome {
  const opened = openedPathSync(fd);
  if (opened !== undefined && opened !== real) return { ok: false, reason: racedMessage(real, opened) };
  const st = fs.fstatSync(fd);
  if (st.isDirectory()) return { ok: false, reason: 'a directory' };
  if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
  if (st.size > maxBytes) return { ok: false, reason: `too large (${st.size} bytes, cap ${maxBytes})` };
  // One byte more than the size says: a file that grew past the cap since fstat is caught.
  const buf = Buffer.allocUnsafe(Math.min(st.size, maxBytes) + 1);
  const bytes = fs.readSync(fd, buf, 0, buf.length, 0);
  if (bytes > maxBytes) return { ok: false, reason: `too large (more than ${maxBytes} bytes)` };
  if (bytes > st.size) return { ok: false, reason: 'changed while being read' };
  const data = buf.subarray(0, bytes);
  if (looksBinary(data)) return { ok: false, reason: 'binary' };
  return { ok: true, content: data.toString('utf8'), mtimeMs: st.mtimeMs };
}

/** Reads one checked real path whole; never throws. */
export function readOneSync(real: string, maxBytes: number): ReadOutcome {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO among the paths must not park the thread waiting for a writer.
    fd = fs.openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, reason: fsError(error, real).message };
  }
  try {
    return readOpened(fd, real, maxBytes);
  } catch (error) {
    return { ok: false, reason: fsError(error, real).message };
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // EIO on a network mount: the descriptor is gone either way, and the outcome stands.
    }
  }
}

/**
 * Reads the paths in order until `budget` bytes of content are read (at least one file is): the
 * outcomes cover a prefix of `reals`, and the caller defers the rest.
 */
export function readBatchSync(reals: readonly string[], maxBytes: number, budget: number): ReadOutcome[] {
  const outcomes: ReadOutcome[] = [];
  let bytes = 0;
  for (const real of reals) {
    if (outcomes.length > 0 && bytes >= budget) break;
    const outcome = readOneSync(real, maxBytes);
    if (outcome.ok) bytes += outcome.content.length;
    outcomes.push(outcome);
  }
  return outcomes;
}
