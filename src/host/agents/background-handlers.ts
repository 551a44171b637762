// The host side of TaskOutput and TaskStop: a run reaches only the background runs of its own
// tree; waiting on one lends the waiting run's pool slot to the others.
import type { Capabilities } from '../../shared/capabilities.js';
import { CadreError, fail, ok } from '../../shared/errors.js';
import type { TaskOutput } from '../../shared/task.js';
import { parseRequest } from '../capabilities/effect-context.js';
import { cancelReason, type RunNode } from './launcher.js';
import { waitLendingSlot } from './lend-slot.js';
import type { RuntimeCore } from './runtime-core.js';

/** How long `agents.output` waits for a background run when the call does not say. */
const DEFAULT_OUTPUT_WAIT_MS = 30_000;

/** A background run of `node`'s tree, or `not_found` (a run of another tree is never named). */
function backgroundChild(core: RuntimeCore, node: RunNode, agentId: string): RunNode {
  const child = core.background.get(agentId);
  if (!child || child.tree !== node.tree)
    throw new CadreError('not_found', `no background run ${agentId} in this task tree`);
  return child;
}

/** Resolves with undefined after `ms`; `cancel` stops the timer. */
function delay(ms: number): { done: Promise<undefined>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return { done, cancel: () => clearTimeout(timer) };
}

/** The agents.output handler: a background run's output, or `running` once the wait is over. */
export function outputHandler(core: RuntimeCore, node: RunNode): Capabilities['agents.output'] {
  return async (raw) => {
    try {
      const req = parseRequest('agents.output', raw);
      const child = backgroundChild(core, node, req.agentId);
      const timeout = delay(req.timeoutMs ?? DEFAULT_OUTPUT_WAIT_MS);
      const waited = await waitLendingSlot(core, node, Promise.race([child.done, timeout.done]));
      timeout.cancel();
      const value: TaskOutput | { agentId: string; status: 'running' } = waited ?? {
        agentId: child.agentId,
        status: 'running',
      };
      return ok(value);
    } catch (error) {
      return fail(error);
    }
  };
}

/** The agents.stop handler: cancels a background run and waits for its end. */
export function stopHandler(core: RuntimeCore, node: RunNode): Capabilities['agents.stop'] {
  return async (raw) => {
    try {
      const req = parseRequest('agents.stop', raw);
      const child = backgroundChild(core, node, req.agentId);
      const running = core.running.has(child.agentId);
      child.cancel.abort(cancelReason('user_cancelled'));
      await child.done;
      return ok({ agentId: child.agentId, stopped: running });
    } catch (error) {
      return fail(error);
    }
  };
}

/** The tree's todo list: read by any run of the tree, written with a `todo-update` event. */
export function todoHandlers(node: RunNode): Pick<Capabilities, 'todos.read' | 'todos.write'> {
  return {
    'todos.read': async () => ok(node.tree.todos),
    'todos.write': async (raw) => {
      try {
        const req = parseRequest('todos.write', raw);
        node.tree.todos = req.todos;
        node.tree.emit({
          type: 'todo-update',
          agentId: node.agentId,
          depth: node.depth,
          at: Date.now(),
          todos: req.todos,
          ...(node.parent ? { parentId: node.parent.agentId } : {}),
        });
        return ok(req.todos);
      } catch (error) {
        return fail(error);
      }
    },
  };
}
