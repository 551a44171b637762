// Drives one run from launch to its one terminal status: exposes the gateway and the model
// channel, feeds the worker's events through the tally, keeps the watchdog's clocks, and closes
// everything when the worker ends. Which status that is, the end classifier decides.
import type { CapabilityName, Capabilities } from '../../shared/capabilities.js';
import { CadreError } from '../../shared/errors.js';
import type { AgentEvent } from '../../shared/events.js';
import type { WorkerRunSpec } from '../../shared/run-spec.js';
import type { Usage } from '../../shared/task.js';
import { exposeGateway } from '../capabilities/gateway.js';
import { serveModelChannel, type ModelChannelContext } from '../capabilities/model-http.js';
import type { Executor } from './executor.js';
import { cancelKill, classifyEnd, type KillReason, type RunEnd, type WorkerOutcome } from './run-end.js';
import { RunTally } from './run-tally.js';
import { RunWatchdog, type RunLimits } from './run-watchdog.js';

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
  let killReason: KillReason | undefined;
  const stop = (reason: KillReason) => {
    if (killReason || kill.signal.aborted) return;
    killReason = reason;
    kill.abort(new CadreError('cancelled', reason.kind));
  };
  const tally = new RunTally(
    { agentId: spec.agentId, depth: spec.depth, ...(spec.parentId ? { parentId: spec.parentId } : {}) },
    spec.caps.maxReplyChars,
  );
  const tallied = () => ({
    result: tally.partialText(),
    usage: tally.usage,
    turns: tally.turns,
    toolCalls: tally.toolCalls,
    durationMs: performance.now() - started,
  });
  const onCancel = () => stop(cancelKill(cancel?.reason));
  if (cancel?.aborted) {
    // Cancelled before it started: no worker is launched at all.
    onCancel();
    return classifyEnd({ kill: killReason, outcome: undefined }, { ...tallied(), durationMs: 0 }, limits);
  }
  cancel?.addEventListener('abort', onCancel, { once: true });
  // The watchdog exists before any handler does: a handler may pause its clock from its first call.
  const watchdog = new RunWatchdog(limits, stop);
  const outcome = await runWorker(executor, spec, hooks, {
    watchdog,
    kill: kill.signal,
    // From the moment the worker settles a cancel no longer changes how the run ended.
    settled: () => cancel?.removeEventListener('abort', onCancel),
    emit: (raw) => {
      watchdog.touch();
      for (const event of tally.take(raw)) {
        const over = event.type === 'usage' ? hooks.checkBudget?.(event.usage) : undefined;
        if (over) stop({ kind: 'budget', message: over });
        hooks.onEvent(event);
      }
    },
  });
  return classifyEnd({ kill: killReason, outcome }, tallied(), limits);
}

/** What `runWorker` drives a worker with. */
interface WorkerDrive {
  watchdog: RunWatchdog;
  kill: AbortSignal;
  /** Takes one `events.emit` call of the worker. */
  emit(raw: unknown): void;
  /** Called as soon as the worker's task settles, before anything is taken down. */
  settled(): void;
}

/**
 * Launches the worker with its gateway and model channel, waits for it to settle under the
 * watchdog, and takes everything down again: no timer, port or effect outlives the run.
 */
async function runWorker(
  executor: Executor,
  spec: WorkerRunSpec,
  hooks: RunHooks,
  drive: WorkerDrive,
): Promise<WorkerOutcome> {
  const { watchdog } = drive;
  const effects = new AbortController();
  const handlers = {
    ...hooks.handlers({ signal: effects.signal, pauseClock: () => watchdog.pauseClock() }),
    'events.emit': async (raw: unknown) => {
      drive.emit(raw);
      return { ok: true as const, value: null };
    },
  } as Partial<Capabilities>;
  const launched = executor.launch(spec, drive.kill);
  const touch = () => watchdog.touch();
  const gateway = exposeGateway(launched.caps, handlers, [...hooks.granted, 'events.emit'], touch);
  const modelChannel = hooks.model
    ? serveModelChannel(launched.model, { ...hooks.model, onActivity: touch })
    : undefined;
  watchdog.start({
    grace: () => launched.control.postMessage({ type: 'grace', message: GRACE_MESSAGE }),
    pending: () => gateway.pending(),
    heap: () => launched.heap(),
  });
  try {
    return { ok: true, value: await launched.done };
  } catch (error) {
    return { ok: false, error };
  } finally {
    drive.settled();
    watchdog.stop();
    // Events the worker sent before it ended may still wait on its port: they go in before the end.
    gateway.takeLate(launched.takePending());
    gateway.close();
    modelChannel?.close();
    effects.abort(new CadreError('cancelled', 'the run has ended'));
    launched.dispose();
  }
}
