// Finds files matching a glob under one root for the Glob and Grep tools. The walk itself
// (glob-walk-sync.ts) runs on a host I/O thread with synchronous calls: a 20,000-file tree costs a
// few hundred readdirs there, and the host's event loop, which keeps deadlines and approvals on
// time, neither walks nor matches the model's pattern against every path.
import type { FsGlobResult } from '../../../shared/capabilities.js';
import { CadreError } from '../../../shared/errors.js';
import type { GlobWalkOptions } from './glob-walk-sync.js';
import { ioCall, type IoPool } from './io-pool.js';
import { cancelSwitch } from './walk-limits.js';

export { planGlob } from './glob-plan.js';
export { type GlobWalkOptions } from './glob-walk-sync.js';

/**
 * Finds files under `rootReal` (an already-checked real directory) whose path relative to it
 * matches `pattern` (dotfiles included). Results are relative to the project directory (absolute
 * when outside it), newest first (or in path order with `sort: 'path'`); when the cap is hit the
 * first `limit` matches found are returned with `truncated: true`. Rejects with `invalid_input`
 * for an empty, absolute, `..` or malformed pattern, `cancelled` once `signal` aborts (the run
 * ended: the walk stops at its next check), and `io_error` when the I/O thread stalls. `io` is
 * the host's I/O pool unless a test passes one of its own.
 */
export async function glob(
  rootReal: string,
  pattern: string,
  options: GlobWalkOptions,
  signal?: AbortSignal,
  io?: IoPool,
): Promise<FsGlobResult> {
  if (signal?.aborted) throw new CadreError('cancelled', 'the run ended before the search');
  const stop = cancelSwitch(signal);
  try {
    return await ioCall<FsGlobResult>(
      { kind: 'glob', rootReal, pattern, options: { ...options, cancel: stop.flag } },
      io,
    );
  } finally {
    stop.dispose();
  }
}
