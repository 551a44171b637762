// The audit log: one JSONL line per capability call (who, what, the policy's verdict and why, how
// long, how it ended), hash-chained so that a changed or removed line shows (`cadre audit verify`).
// Arguments are summarised (audit-summary.ts), never logged raw.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../shared/errors.js';
import { appendChained, AuditLockBusy, LOCK_WAIT_MS, type ChainState } from '../records/audit-chain.js';
import { cut, summarizeArgs } from './audit-summary.js';

export { redactSecrets, summarizeArgs } from './audit-summary.js';

/** One capability call, as the capability layer reports it. `args` is the raw request. */
export interface AuditEntry {
  /** Epoch ms; defaults to the log's clock. */
  at?: number;
  runId?: string;
  agentId: string;
  agentType?: string;
  capability: string;
  /** The request as the worker sent it (or a one-line summary); only a summary is written. */
  args: unknown;
  decision: 'allow' | 'ask' | 'deny';
  /** For `ask`: what the person (or the non-interactive resolver) answered. */
  approval?: 'allow' | 'deny';
  /**
   * Who decided: `policy` (a rule or the mode), `user` (a person at the prompt), `session` (a rule
   * a person allowed for the session), `non-interactive` (nobody to ask), or how an unanswered
   * request ended (`cancelled`, `closed`, `timeout`, `prompt-error`).
   */
  decidedBy?: string;
  /** For `ask`: how long the call waited for its answer, in ms. */
  waitedMs?: number;
  reason: string;
  rule?: string;
  durationMs: number;
  ok: boolean;
  errorCode?: string;
}

/** An open audit log. */
export interface AuditLog {
  readonly path: string;
  /** Queues one line; never throws, never blocks. */
  record(entry: AuditEntry): void;
  /** Resolves once every line recorded so far is written. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. Lines recorded later are still written. */
  close(): Promise<void>;
}

/** Options for `createAuditLog`. */
export interface AuditLogOptions {
  clock?: () => number;
  /** How long lines may wait in memory before a write (default 50 ms). */
  flushIntervalMs?: number;
  /** Called when a write fails (the log keeps going). */
  onError?: (error: Error) => void;
}

const MAX_BUFFERED_CHARS = 64 * 1024;
/**
 * Most entries held before a write. An entry's line is at most a few KB (its summary, reason and
 * names are cut), so this bounds the memory held as MAX_BUFFERED_CHARS bounds the written lines.
 */
const MAX_QUEUED_ENTRIES = 256;
/** How soon a flush that found the lock taken is tried again. */
const LOCK_RETRY_MS = 5;

/** An entry recorded and not yet formatted: its clock reading and its arguments' summary, taken when it was recorded. */
interface Queued {
  entry: AuditEntry;
  now: number;
  args: Record<string, unknown> | string;
}

/** One entry as the JSON text of its line, before the chain's `prev` is put in front. */
function body({ entry, now, args }: Queued): string {
  // JSON leaves out fields that are undefined, so no defined() pass is needed.
  return JSON.stringify({
    at: typeof entry.at === 'number' ? entry.at : now,
    runId: entry.runId,
    agentId: entry.agentId,
    agentType: entry.agentType,
    capability: entry.capability,
    args: typeof args === 'string' ? summarizeArgs(String(entry.capability), args) : args,
    decision: entry.decision,
    approval: entry.approval,
    decidedBy: typeof entry.decidedBy === 'string' ? cut(entry.decidedBy, 40) : undefined,
    waitedMs: typeof entry.waitedMs === 'number' ? Math.round(entry.waitedMs) : undefined,
    reason: cut(entry.reason, 1000),
    rule: entry.rule,
    durationMs: typeof entry.durationMs === 'number' ? Math.round(entry.durationMs * 1000) / 1000 : undefined,
    ok: entry.ok,
    errorCode: entry.errorCode,
  });
}

/** The line of a queued entry; an entry that cannot be written still leaves a line saying so. */
function lineOf(item: Queued): string {
  try {
    return body(item);
  } catch (error) {
    return unloggable(item.entry, item.now, error);
  }
}

function unloggable(entry: AuditEntry, now: number, error: unknown): string {
  return JSON.stringify({
    at: now,
    capability: String(entry?.capability),
    error: `unloggable entry: ${(error as Error).message}`,
  });
}

/**
 * Opens (creating directories as needed) an append-only, hash-chained JSONL audit log
 * (records/audit-chain.ts). Lines are buffered for at most `flushIntervalMs`; `close()` writes them
 * all, and a process exit writes what is left. Rejects with `io_error` when the directory cannot
 * be created.
 */
export async function createAuditLog(file: string, options: AuditLogOptions = {}): Promise<AuditLog> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
  } catch (error) {
    throw new CadreError(
      'io_error',
      `cannot create the audit log directory for ${file}: ${(error as Error).message}`,
    );
  }
  const clock = options.clock ?? Date.now;
  const interval = options.flushIntervalMs ?? 50;
  // Entries are kept as recorded and turned into lines when written: a call's own path pays for a
  // push, and the JSON and secret masking of a whole batch run together, off every call's path.
  let queued: Queued[] = [];
  let buffer: string[] = [];
  let buffered = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let state: ChainState | undefined;

  // Appends are synchronous (a few small calls under the log's lock, see audit-chain.ts), so the
  // lines of a flush are on disk, chained, when it returns. Another process holding the lock makes
  // the event loop wait for nobody: the lines stay queued and the flush is tried again shortly; only
  // the exit handler, the last chance, waits for the lock. A failed append keeps its lines too.
  const writeNow = (waitMs = 0): 'written' | 'busy' | 'failed' => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (const item of queued) {
      const text = lineOf(item);
      buffer.push(text);
      buffered += text.length;
    }
    queued = [];
    if (buffer.length === 0) return 'written';
    try {
      state = appendChained(file, buffer, state, waitMs);
      buffer = [];
      buffered = 0;
      return 'written';
    } catch (error) {
      if (error instanceof AuditLockBusy) {
        timer = setTimeout(() => writeNow(), LOCK_RETRY_MS).unref();
        return 'busy';
      }
      options.onError?.(error as Error);
      // Kept for the next try, up to a cap past which they are dropped (the failure was reported).
      if (buffered > MAX_BUFFERED_CHARS * 64) {
        buffer = [];
        buffered = 0;
      }
      return 'failed';
    }
  };
  /** Writes what is queued, waiting out another writer's lock (up to `LOCK_WAIT_MS`) without blocking. */
  const drain = async (): Promise<void> => {
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (writeNow() === 'busy') {
      if (Date.now() >= deadline) {
        options.onError?.(new Error(`the audit log stayed locked by another process for ${LOCK_WAIT_MS} ms`));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  };
  const onExit = () => void writeNow(LOCK_WAIT_MS);
  process.on('exit', onExit);

  return {
    path: file,
    record(entry) {
      const now = clock();
      try {
        // A string is kept as it is (it cannot change); a request is summarised now, as it stands,
        // and not held (it may be large: a file's content).
        if (typeof entry.args === 'string') queued.push({ entry, now, args: entry.args });
        else
          queued.push({
            entry: { ...entry, args: undefined },
            now,
            args: summarizeArgs(String(entry.capability), entry.args),
          });
      } catch (error) {
        const text = unloggable(entry, now, error);
        buffer.push(text);
        buffered += text.length;
      }
      if (closed || queued.length >= MAX_QUEUED_ENTRIES || buffered >= MAX_BUFFERED_CHARS) writeNow();
      else timer ??= setTimeout(() => writeNow(), interval).unref();
    },
    flush: drain,
    async close() {
      closed = true;
      await drain();
      process.off('exit', onExit);
    },
  };
}
