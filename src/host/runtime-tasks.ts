// How a runtime starts tasks: each in an agent tree of its own, or in a session's shared tree,
// with a handle that carries its events, its result and a way to stop it.
import { CadreError } from '../shared/errors.js';
import { TaskInput } from '../shared/task.js';
import { formatZodError } from '../shared/zod-format.js';
import { cancelReason } from './agents/cancel-reason.js';
import { launch, type RunNode } from './agents/launcher.js';
import type { RuntimeCore } from './agents/runtime-core.js';
import { AgentTree } from './agents/tree.js';
import type { Runtime, TaskHandle, TaskOptions } from './runtime.js';
import { TaskEvents } from './task-events.js';

/** Starts `raw` in `tree`; the handle's events are the tree's while this task runs. */
async function startTask(
  core: RuntimeCore,
  raw: TaskInput,
  tree: AgentTree,
  taskOptions: TaskOptions = {},
): Promise<TaskHandle> {
  const parsed = TaskInput.safeParse(raw);
  if (!parsed.success) throw new CadreError('invalid_input', formatZodError(parsed.error, 'task').join('; '));
  const events = new TaskEvents(tree, taskOptions.events !== false);
  let node: RunNode;
  try {
    node = (await launch(core, parsed.data, tree)).node;
  } catch (error) {
    events.end();
    throw error;
  }
  const stop = () => node.cancel.abort(cancelReason('user_cancelled'));
  const { signal } = taskOptions;
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();
  const result = node.done.then((output) => {
    signal?.removeEventListener('abort', stop);
    events.end();
    return output;
  });
  events.handedOver();
  return {
    agentId: node.agentId,
    get events() {
      return events.read();
    },
    result,
    usage: () => tree.usage,
    stop,
  };
}

/** A runtime's `task` and `session`: trees numbered in the order they are made. */
export function taskStarters(core: RuntimeCore): Pick<Runtime, 'task' | 'session'> {
  let treeSeq = 0;
  const budget = core.config.tokenBudget;
  return {
    task: (raw, taskOptions) =>
      startTask(
        core,
        raw,
        new AgentTree(`tree-${++treeSeq}`, budget, taskOptions?.onEvent ? [taskOptions.onEvent] : []),
        taskOptions,
      ),
    session: (sessionOptions = {}) => {
      const listeners = sessionOptions.onEvent ? [sessionOptions.onEvent] : [];
      const tree = new AgentTree(`session-${++treeSeq}`, budget, listeners, true);
      return {
        id: tree.id,
        task: (raw, taskOptions) => startTask(core, raw, tree, taskOptions),
        stop() {
          for (const node of core.running.values())
            if (node.tree === tree) node.cancel.abort(cancelReason('user_cancelled'));
        },
      };
    },
  };
}
