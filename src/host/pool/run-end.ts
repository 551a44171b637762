// Which one terminal status a run ends with, from what happened to it: the host's reason for
// stopping it (if any), and how its worker ended — returned a result, threw, exited, ran out of
// memory. Pure: the controller gathers the facts, this decides.
import * as z from 'zod';
import { isCadreError, toWire, WireError } from '../../shared/errors.js';
import { Usage, type EndReason, type TaskStatus } from '../../shared/task.js';
import { formatZodError } from '../../shared/zod-format.js';

/** Why the host stopped a run. */
export type KillReason =
  | { kind: 'timeout' }
  | { kind: 'idle' }
  | { kind: 'cancel'; reason: Extract<EndReason, 'user_cancelled' | 'parent_cancelled'> }
  | { kind: 'budget'; message: string }
  | { kind: 'oom'; usedMb: number }
  /** The host could not keep the run's record (its transcript would not open): the run fails. */
  | { kind: 'fault'; error: WireError };

/** How a run ended, before the runtime adds ids and paths. */
export interface RunEnd {
  status: TaskStatus;
  result: string;
  error?: WireError & { reason?: EndReason };
  usage: Usage;
  turns: number;
  toolCalls: number;
  durationMs: number;
}

/** How the worker's task settled: the value it returned, or what it rejected with. */
export type WorkerOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What happened to a run: the host's kill reason, and the worker's outcome if it was started. */
export interface RunHappenings {
  kill: KillReason | undefined;
  outcome: WorkerOutcome | undefined;
}

/** What the host tallied of the run itself: the partial result and counts a kill keeps. */
export type RunTallied = Pick<RunEnd, 'result' | 'usage' | 'turns' | 'toolCalls' | 'durationMs'>;

/** Time limits the end messages name, in ms. */
export interface EndLimits {
  timeoutMs: number;
  idleTimeoutMs: number;
}

/** What a worker's loop may return; a malformed result is a crash, not a status. */
const WorkerResultSchema = z.object({
  status: z.enum(['completed', 'failed', 'max_turns']),
  result: z.string(),
  error: WireError.optional(),
  usage: Usage,
  turns: z.number().int().min(0),
  toolCalls: z.number().int().min(0),
});

/** Reasons a worker may report in `details.reason` that become the output's `error.reason`. */
const WORKER_REASONS: ReadonlySet<EndReason> = new Set<EndReason>(['reply_too_large']);

/**
 * The run's end. A result the worker returned counts only when the host did not stop the run
 * first (a kill wins over a result that raced it); the tallied counts stand in for what a killed
 * or dead worker could not report.
 */
export function classifyEnd(happened: RunHappenings, tallied: RunTallied, limits: EndLimits): RunEnd {
  const { kill, outcome } = happened;
  if (outcome?.ok === true && kill === undefined) return workerEnd(outcome.value, tallied);
  if (kill !== undefined) return { ...tallied, ...killEnd(kill, limits) };
  const error = outcome?.ok === false ? outcome.error : new Error('the run ended without an outcome');
  return { ...tallied, ...failureEnd(error) };
}

/** The kill reason a cancel signal's abort reason stands for. */
export function cancelKill(reason: unknown): KillReason {
  if (isCadreError(reason) && reason.code === 'io_error') return { kind: 'fault', error: toWire(reason) };
  const why = (reason as { details?: { endReason?: unknown } } | undefined)?.details?.endReason;
  return { kind: 'cancel', reason: why === 'parent_cancelled' ? 'parent_cancelled' : 'user_cancelled' };
}

/** The end a worker reported for itself, checked: a malformed one is a crash. */
function workerEnd(value: unknown, tallied: RunTallied): RunEnd {
  const checked = WorkerResultSchema.safeParse(value);
  if (!checked.success) {
    return {
      ...tallied,
      status: 'crashed',
      error: {
        code: 'worker_died',
        reason: 'worker_error',
        message: `the worker returned a malformed result: ${formatZodError(checked.error).join('; ')}`,
      },
    };
  }
  const r = checked.data;
  // A model stream that went silent is the idle watchdog firing inside the worker: same status.
  const idle = r.status === 'failed' && r.error?.code === 'timeout';
  const reason = idle ? 'idle_timeout' : liftedReason(r.error);
  return {
    ...tallied,
    status: idle ? 'timeout' : r.status,
    result: r.result,
    usage: r.usage,
    turns: r.turns,
    toolCalls: r.toolCalls,
    ...(r.error ? { error: reason ? { ...r.error, reason } : r.error } : {}),
  };
}

function liftedReason(error: WireError | undefined): EndReason | undefined {
  const reason = error?.details?.['reason'];
  return typeof reason === 'string' && WORKER_REASONS.has(reason as EndReason)
    ? (reason as EndReason)
    : undefined;
}

/** The status and error of a run the host stopped. */
function killEnd(kill: KillReason, limits: EndLimits): Pick<RunEnd, 'status' | 'error'> {
  switch (kill.kind) {
    case 'timeout':
      return {
        status: 'timeout',
        error: {
          code: 'timeout',
          message: `run exceeded its timeout of ${limits.timeoutMs / 1000} s and was terminated`,
        },
      };
    case 'idle':
      return {
        status: 'timeout',
        error: {
          code: 'timeout',
          reason: 'idle_timeout',
          message: `no model output or tool activity for ${limits.idleTimeoutMs / 1000} s; the run was terminated`,
        },
      };
    case 'cancel':
      return {
        status: 'cancelled',
        error: {
          code: 'cancelled',
          reason: kill.reason,
          message:
            kill.reason === 'parent_cancelled'
              ? 'cancelled because its parent ended'
              : 'cancelled by the caller (stop() or Ctrl-C)',
        },
      };
    case 'budget':
      return { status: 'budget_exceeded', error: { code: 'budget_exceeded', message: kill.message } };
    case 'fault':
      return { status: 'failed', error: kill.error };
    case 'oom':
      return {
        status: 'crashed',
        error: {
          code: 'out_of_memory',
          reason: 'out_of_memory',
          message: `worker heap reached ${kill.usedMb} MB, near its limit; killed before V8 aborts`,
        },
      };
  }
}

/** The status and error of a worker that died on its own (threw, exited, ran out of memory). */
function failureEnd(error: unknown): Pick<RunEnd, 'status' | 'error'> {
  const e = error as { code?: string; message?: string } | undefined;
  const message = e?.message ?? String(error);
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { status: 'crashed', error: { code: 'out_of_memory', reason: 'out_of_memory', message } };
  }
  if (e?.code === 'ERR_WORKER_EXIT')
    return { status: 'crashed', error: { code: 'worker_died', reason: 'worker_exit', message } };
  return { status: 'crashed', error: { code: 'worker_died', reason: 'worker_error', message } };
}
