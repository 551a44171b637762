// Which tasks of a batch run this time, and how: a pure step between reading the tasks file and
// the results file and running anything. Tasks with a result are skipped (unless --retry names
// their status); tasks that were running when the batch process died are suspects and run one at
// a time; a task that was running at two such deaths is recorded as `crashed` and never run again,
// so one task that kills the process cannot hold a whole batch in a crash loop.
import { emptyUsage, type TaskStatus } from '../../shared/task.js';
import type { BatchResult } from './run-batch.js';
import type { BatchTask } from './task-file.js';

/** Deaths of the batch process a task may be running at before it is no longer run. */
const MAX_TASK_CRASHES = 2;

/** What the plan starts from. */
export interface PlanInput {
  tasks: readonly BatchTask[];
  /** The last recorded status of each id in the results file. */
  finished: ReadonlyMap<string, TaskStatus>;
  /** Ids this invocation already finished (before a restart): done, whatever --retry says. */
  resumed: ReadonlySet<string>;
  /** Statuses to run again. */
  retry: ReadonlySet<string>;
  /** For each task that was running when the batch process died: the signal of each death. */
  crashes: Readonly<Record<string, readonly string[]>>;
}

/** What to do. */
export interface BatchPlan {
  /** Results to record without running (tasks that were running at too many deaths). */
  gaveUp: BatchResult[];
  /** Suspects of one earlier death: run one at a time, before the rest. */
  alone: BatchTask[];
  /** Everything else that needs a run. */
  rest: BatchTask[];
  /** Tasks of the file that already have a result and are not run again. */
  alreadyDone: number;
}

/** Plans a batch. */
export function planBatch(input: PlanInput): BatchPlan {
  const plan: BatchPlan = { gaveUp: [], alone: [], rest: [], alreadyDone: 0 };
  for (const task of input.tasks) {
    if (input.resumed.has(task.id)) continue;
    const status = input.finished.get(task.id);
    if (status !== undefined && !input.retry.has(status)) {
      plan.alreadyDone++;
      continue;
    }
    const deaths = input.crashes[task.id] ?? [];
    if (deaths.length >= MAX_TASK_CRASHES) plan.gaveUp.push(crashedResult(task, deaths));
    else if (deaths.length > 0) plan.alone.push(task);
    else plan.rest.push(task);
  }
  return plan;
}

function crashedResult(task: BatchTask, deaths: readonly string[]): BatchResult {
  return {
    id: task.id,
    agentId: '',
    agentType: task.agent,
    status: 'crashed',
    result: '',
    error: {
      code: 'worker_died',
      reason: 'host_crash',
      message: `the batch process died (${deaths.join(', ')}) while this task was running, ${deaths.length} times; it is not run again. Run it alone (cadre run ${task.agent} ...) to investigate.`,
    },
    usage: emptyUsage(),
    model: task.model ?? '',
    durationMs: 0,
    turns: 0,
    toolCalls: 0,
    transcriptPath: '',
    refused: 0,
  };
}
