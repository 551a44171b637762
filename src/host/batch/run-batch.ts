// runtime.batch(): runs many tasks with bounded concurrency and yields each result the moment its
// task ends. Cancelling stops launching and cancels running tasks, which still yield (as
// `cancelled`): every task that started ends with exactly one result.
import { toWire } from '../../shared/errors.js';
import { emptyUsage, type PermissionMode, type TaskInput, type TaskOutput } from '../../shared/task.js';
import { EffectTally } from '../agents/effect-tally.js';
import { EventChannel } from '../agents/event-channel.js';
import type { TaskHandle, TaskOptions } from '../runtime.js';
import type { BatchTask } from './task-file.js';

/**
 * One task's result: the TaskOutput fields plus the task's id and `refused`, how many capability
 * calls of its tree the host refused (absent in lines written by older versions).
 */
export type BatchResult = TaskOutput & { id: string; refused?: number };

/** Batch-wide settings; a task's own fields win over them. */
export interface BatchOptions {
  concurrency?: number;
  /** Seconds. */
  timeout?: number;
  maxTurns?: number;
  /** Token budget of each task. */
  tokenBudget?: number;
  model?: string;
  permissionMode?: PermissionMode;
  /** Stops launching and cancels running tasks. */
  signal?: AbortSignal;
  /** Called as each task starts (before its run is launched). */
  onStart?: (task: BatchTask) => void;
}

/** The part of the runtime a batch needs. */
export interface BatchRunner {
  task(input: TaskInput, options?: TaskOptions): Promise<TaskHandle>;
}

/** Runs `tasks`, yielding results as they finish (not in input order). */
export function runBatch(
  runtime: BatchRunner,
  tasks: Iterable<BatchTask> | AsyncIterable<BatchTask>,
  options: BatchOptions = {},
): AsyncIterable<BatchResult> {
  const out = new EventChannel<BatchResult>();
  const lanes = Math.max(1, options.concurrency ?? 16);
  const iterator = (
    Symbol.asyncIterator in tasks
      ? tasks[Symbol.asyncIterator]()
      : (tasks as Iterable<BatchTask>)[Symbol.iterator]()
  ) as AsyncIterator<BatchTask> | Iterator<BatchTask>;
  const running = new Set<TaskHandle>();
  const onAbort = () => {
    for (const handle of running) handle.stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const next = async (): Promise<BatchTask | undefined> => {
    if (options.signal?.aborted) return undefined;
    const step = await iterator.next();
    return step.done ? undefined : step.value;
  };

  const lane = async () => {
    for (let task = await next(); task; task = await next()) {
      const started = performance.now();
      let handle: TaskHandle | undefined;
      const tally = new EffectTally();
      options.onStart?.(task);
      try {
        handle = await runtime.task(
          {
            subagent_type: task.agent,
            prompt: task.prompt,
            description: `batch task ${task.id}`,
            ...((task.model ?? options.model) ? { model: task.model ?? options.model } : {}),
            ...((task.timeout ?? options.timeout) ? { timeout: task.timeout ?? options.timeout } : {}),
            ...((task.max_turns ?? options.maxTurns)
              ? { max_turns: task.max_turns ?? options.maxTurns }
              : {}),
            ...(options.tokenBudget ? { token_budget: options.tokenBudget } : {}),
            ...(options.permissionMode ? { permission_mode: options.permissionMode } : {}),
            ...(task.cwd ? { cwd: task.cwd } : {}),
          },
          // Nobody iterates a batch task's events: keeping them would hold every streamed delta.
          { events: false, onEvent: (event) => tally.observe(event) },
        );
        running.add(handle);
        if (options.signal?.aborted) handle.stop();
        const output = await handle.result;
        out.push({ id: task.id, ...output, refused: tally.counts().refused });
      } catch (error) {
        out.push(unstarted(task, error, performance.now() - started));
      } finally {
        if (handle) running.delete(handle);
      }
    }
  };

  void Promise.all(Array.from({ length: lanes }, lane)).finally(() => {
    options.signal?.removeEventListener('abort', onAbort);
    out.close();
  });
  return out;
}

/** The result of a task that could not start (bad cwd, unknown model provider, ...). */
function unstarted(task: BatchTask, error: unknown, durationMs: number): BatchResult {
  return {
    id: task.id,
    agentId: '',
    agentType: task.agent,
    status: 'failed',
    result: '',
    error: toWire(error),
    usage: emptyUsage(),
    model: task.model ?? '',
    durationMs: Math.round(durationMs),
    turns: 0,
    toolCalls: 0,
    transcriptPath: '',
  };
}
