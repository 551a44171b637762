// Drives one run from launch to its one terminal status: exposes the gateway, enforces the wall
// clock (with a grace turn before it), the idle watchdog, heap sampling and the budget, and maps
// every way a worker can end — returned, killed, threw, exited, out of memory — onto a status.
import type { CapabilityName, Capabilities } from '../../shared/capabilities.js';
import * as z from 'zod';
import { CadreError, isCadreError, toWire, WireError } from '../../shared/errors.js';
import { formatZodError } from '../../shared/zod-format.js';
import { AgentEvent, parseTextDelta } from '../../shared/events.js';
import type { WorkerRunResult, WorkerRunSpec } from '../../shared/run-spec.js';
import { emptyUsage, Usage, type EndReason, type TaskStatus } from '../../shared/task.js';
import { exposeGateway } from '../capabilities/gateway.js';
import { serveModelChannel, type ModelChannelContext } from '../capabilities/model-http.js';
import { Deadline, graceOffsetMs } from './deadline.js';
import type { Executor } from './executor.js';

/** Why the host stopped a run. */
type KillReason =
  | { kind: 'timeout' }
  | { kind: 'idle' }
  | { kind: 'cancel'; reason: Extract<EndReason, 'user_cancelled' | 'parent_cancelled'> }
  | { kind: 'budget'; message: string }
  | { kind: 'oom'; usedMb: number }
  /** The host could not keep the run's record (its transcript would not open): the run fails. */
  | { kind: 'fault'; error: WireError };

/** What the controller needs from the rest of the host for one run. */
export interface RunHooks {
  /** Builds the run's capability handlers; `signal` aborts when the run ends. */
  handlers(ctx: { signal: AbortSignal; pauseClock: () => () => void }): Partial<Capabilities>;
  granted: readonly CapabilityName[];
  /** Every validated event, in order. */
  onEvent(event: AgentEvent): void;
  /** Checked after each usage event: a message ends the run as budget_exceeded. */
  checkBudget?(usage: Usage): string | undefined;
  /** Where the run's model client may send HTTP requests, and with which secret. */
  model?: Omit<ModelChannelContext, 'onActivity'>;
}

/** Time limits of one run, in ms. */
export interface RunLimits {
  timeoutMs: number;
  idleTimeoutMs: number;
  /** When to ask for the grace turn; default graceOffsetMs(timeoutMs). `null` disables it. */
  graceAtMs?: number | null;
  /** Kill a thread whose heap passes this fraction of its limit (where sampling exists). */
  heapKillFraction?: number;
  heapSampleMs?: number;
}

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

/** Event types a worker may report; anything else from a worker is dropped. */
const WORKER_EVENTS: ReadonlySet<string> = new Set([
  'text-delta',
  'tool-call',
  'tool-result',
  'message-append',
  'turn-end',
  'usage',
  'notice',
  'model-exchange',
]);

/** What a worker's loop may return; a malformed result is a crash, not a status. */
const WorkerResultSchema = z.object({
  status: z.enum(['completed', 'failed', 'max_turns']),
  result: z.string(),
  error: WireError.optional(),
  usage: Usage,
  turns: z.number().int().min(0),
  toolCalls: z.number().int().min(0),
});

const GRACE_MESSAGE =
  'Time is almost up. Stop using tools and write your final report now: what you found, with file paths, and what is left undone.';

/** Runs `spec` to its terminal status. Never rejects. */
export async function runToEnd(
  executor: Executor,
  spec: WorkerRunSpec,
  hooks: RunHooks,
  limits: RunLimits,
  cancel?: AbortSignal,
): Promise<RunEnd> {
  const started = performance.now();
  const kill = new AbortController();
  const effects = new AbortController();
  let killReason: KillReason | undefined;
  const stop = (reason: KillReason) => {
    if (killReason || kill.signal.aborted) return;
    killReason = reason;
    kill.abort(new CadreError('cancelled', reason.kind));
  };

  // What the host knows of the run so far, from its events: the partial result on a kill.
  let usage = emptyUsage();
  // The partial text is the host's own copy of what streamed, held to the reply cap (a worker
  // cannot make the host keep more), and never flattened or trimmed: it can be tens of MB.
  let turnText = '';
  let turnHasText = false;
  let lastText = '';
  const keepText = (text: string) => {
    const room = spec.caps.maxReplyChars - turnText.length;
    if (room <= 0) return;
    turnText += text.length <= room ? text : text.slice(0, room);
    if (!turnHasText && /\S/.test(text)) turnHasText = true;
  };
  let turns = 0;
  let toolCalls = 0;
  let lastActivity = performance.now();
  // The idle watchdog starts with the worker's first call: a thread still starting is not idle.
  let workerStarted = false;
  const touch = () => {
    workerStarted = true;
    lastActivity = performance.now();
  };

  const graceAt =
    limits.graceAtMs === null ? undefined : (limits.graceAtMs ?? graceOffsetMs(limits.timeoutMs));
  let paused = 0;
  const pauseClock = () => {
    paused++;
    const resume = deadline.pause();
    return () => {
      paused--;
      touch();
      resume();
    };
  };

  const stamp = {
    agentId: spec.agentId,
    depth: spec.depth,
    ...(spec.parentId ? { parentId: spec.parentId } : {}),
  };
  const emit = async (raw: unknown) => {
    touch();
    const list = Array.isArray(raw) ? raw : [];
    for (const item of list) {
      let event: AgentEvent | undefined = parseTextDelta(item, stamp);
      if (event === undefined) {
        // The identity is the host's: a worker cannot claim another run's id, depth or parent.
        const forced: Record<string, unknown> = { ...(item as object), ...stamp };
        if (!spec.parentId) delete forced.parentId;
        const parsed = AgentEvent.safeParse(forced);
        // Only what an agent loop produces: lifecycle, approval and todo events are the host's own.
        if (!parsed.success || !WORKER_EVENTS.has(parsed.data.type)) continue;
        event = parsed.data;
      }
      if (event.type === 'text-delta') keepText(event.text);
      if (event.type === 'tool-call') toolCalls++;
      if (event.type === 'turn-end') {
        turns = event.turn;
        if (turnHasText) lastText = turnText;
        turnText = '';
        turnHasText = false;
      }
      if (event.type === 'usage') {
        usage = event.usage;
        const over = hooks.checkBudget?.(usage);
        if (over) stop({ kind: 'budget', message: over });
      }
      hooks.onEvent(event);
    }
    return { ok: true as const, value: null };
  };

  const handlers = {
    ...hooks.handlers({ signal: effects.signal, pauseClock }),
    'events.emit': emit,
  } as Partial<Capabilities>;
  const onCancel = () => {
    const reason: unknown = cancel?.reason;
    if (isCadreError(reason) && reason.code === 'io_error')
      return stop({ kind: 'fault', error: toWire(reason) });
    const why = (reason as { details?: { endReason?: unknown } } | undefined)?.details?.endReason;
    stop({ kind: 'cancel', reason: why === 'parent_cancelled' ? 'parent_cancelled' : 'user_cancelled' });
  };
  if (cancel?.aborted) {
    // Cancelled before it started: no worker is launched at all.
    onCancel();
    return {
      result: '',
      usage,
      turns: 0,
      toolCalls: 0,
      durationMs: 0,
      ...endFor(killReason, undefined, limits),
    };
  }
  cancel?.addEventListener('abort', onCancel, { once: true });

  const launched = executor.launch(spec, kill.signal);
  const deadline = new Deadline(
    limits.timeoutMs,
    graceAt,
    () => launched.control.postMessage({ type: 'grace', message: GRACE_MESSAGE }),
    () => stop({ kind: 'timeout' }),
  );
  const gateway = exposeGateway(launched.caps, handlers, [...hooks.granted, 'events.emit'], touch);
  const modelChannel = hooks.model
    ? serveModelChannel(launched.model, { ...hooks.model, onActivity: touch })
    : undefined;
  deadline.start();
  // Approval waits stop the clock, but the worker keeps running meanwhile (a parallel tool call
  // may be spinning), so an absolute ceiling still holds: twice the timeout, at least 10 minutes more.
  const ceiling = setTimeout(
    () => stop({ kind: 'timeout' }),
    limits.timeoutMs + Math.max(limits.timeoutMs, 600_000),
  );
  const watch = setInterval(
    () => {
      // A run waiting on a capability (a child agent, a command) is not idle: those have their own limits.
      if (
        workerStarted &&
        paused === 0 &&
        gateway.pending() === 0 &&
        performance.now() - lastActivity > limits.idleTimeoutMs
      )
        stop({ kind: 'idle' });
      const heap = launched.heap();
      if (heap && heap.used > heap.limit * (limits.heapKillFraction ?? 0.9)) {
        stop({ kind: 'oom', usedMb: Math.round(heap.used / 1048576) });
      }
    },
    Math.max(10, Math.min(limits.heapSampleMs ?? 25, limits.idleTimeoutMs / 4)),
  );

  let outcome: { ok: true; value: WorkerRunResult } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await launched.done };
  } catch (error) {
    outcome = { ok: false, error };
  } finally {
    clearInterval(watch);
    clearTimeout(ceiling);
    deadline.stop();
    cancel?.removeEventListener('abort', onCancel);
    // Events the worker sent before it ended may still wait on its port: they go in before the end.
    gateway.takeLate(launched.takePending());
    gateway.close();
    modelChannel?.close();
    effects.abort(new CadreError('cancelled', 'the run has ended'));
    launched.dispose();
  }
  if (turnHasText) lastText = turnText;
  const base = { usage, turns, toolCalls, durationMs: performance.now() - started };
  if (outcome.ok && !killReason) {
    const checked = WorkerResultSchema.safeParse(outcome.value);
    if (!checked.success) {
      return {
        ...base,
        result: lastText,
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
      ...base,
      status: idle ? 'timeout' : r.status,
      result: r.result,
      usage: r.usage,
      turns: r.turns,
      toolCalls: r.toolCalls,
      ...(r.error ? { error: reason ? { ...r.error, reason } : r.error } : {}),
    };
  }
  return { ...base, result: lastText, ...endFor(killReason, outcome.ok ? undefined : outcome.error, limits) };
}

/** Reasons a worker may report in `details.reason` that become the output's `error.reason`. */
const WORKER_REASONS: ReadonlySet<EndReason> = new Set<EndReason>(['reply_too_large']);

function liftedReason(error: WireError | undefined): EndReason | undefined {
  const reason = error?.details?.['reason'];
  return typeof reason === 'string' && WORKER_REASONS.has(reason as EndReason)
    ? (reason as EndReason)
    : undefined;
}

/** Maps a kill reason or a worker failure to a status and error. */
function endFor(
  kill: KillReason | undefined,
  error: unknown,
  limits: RunLimits,
): Pick<RunEnd, 'status' | 'error'> {
  switch (kill?.kind) {
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
    case undefined:
      break;
  }
  const e = error as { code?: string; message?: string } | undefined;
  const message = e?.message ?? String(error);
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { status: 'crashed', error: { code: 'out_of_memory', reason: 'out_of_memory', message } };
  }
  if (/exited/i.test(message))
    return { status: 'crashed', error: { code: 'worker_died', reason: 'worker_exit', message } };
  return { status: 'crashed', error: { code: 'worker_died', reason: 'worker_error', message } };
}
