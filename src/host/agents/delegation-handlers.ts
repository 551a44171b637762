// The host side of delegation: `agents.task` (spawn a child, in the foreground or background),
// `agents.output`, `agents.stop`, and the tree's todo list. A blocked parent lends its slot to its
// children so nested trees cannot deadlock the pool.
import type { BackgroundHandle, Capabilities } from '../../shared/capabilities.js';
import { CadreError, fail, ok } from '../../shared/errors.js';
import type { TaskOutput } from '../../shared/task.js';
import { detailOf } from '../approvals/preview.js';
import { audited, authorize, parseRequest, type AuthorizeContext } from '../capabilities/authorize.js';
import { maySpawn } from './grant.js';
import { cancelReason, launch, type RunNode } from './launcher.js';
import type { RuntimeCore } from './runtime-core.js';

/** Builds the delegation handlers of one run; `auth` is the run's one authorization context. */
export function delegationHandlers(
  core: RuntimeCore,
  node: RunNode,
  auth: AuthorizeContext,
): Partial<Capabilities> {
  const task: Capabilities['agents.task'] = (raw) =>
    audited<TaskOutput | BackgroundHandle>(auth, 'agents.task', raw, async (call) => {
      const input = parseRequest('agents.task', raw);
      const allowed = maySpawn(node.grant, input.subagent_type);
      if (allowed !== true) throw new CadreError('not_granted', allowed);
      if (!core.hasAgent(input.subagent_type)) {
        throw new CadreError(
          'not_found',
          `unknown agent type "${input.subagent_type}"; available: ${core.agentNames().join(', ')}`,
        );
      }
      if (node.tree.exhausted()) {
        throw new CadreError(
          'budget_exceeded',
          `the agent tree has spent its token budget of ${node.tree.tokenBudget}; no new subagents can start — finish with what you have`,
        );
      }
      const reason = await authorize(
        auth,
        call,
        { capability: 'agents.task', agentType: input.subagent_type },
        {
          action: `start a ${input.subagent_type} subagent`,
          summary: `launch a ${input.subagent_type} subagent: ${input.description ?? input.prompt.slice(0, 80)}`,
          preview: () => input.prompt.slice(0, 2000),
          detail: () => detailOf(input),
        },
      );
      if (input.resume && core.running.has(input.resume))
        throw new CadreError(
          'invalid_input',
          `run ${input.resume} is still going; wait for it with TaskOutput`,
        );
      const { node: child } = await launch(core, input, node.tree, node);
      if (input.run_in_background) {
        core.background.set(child.agentId, child);
        const handle: BackgroundHandle = {
          agentId: child.agentId,
          status: 'running',
          transcriptPath: child.transcriptPath,
        };
        return { value: handle, reason };
      }
      return { value: await waitLendingSlot(core, node, child.done), reason };
    });

  const output: Capabilities['agents.output'] = async (raw) => {
    try {
      const req = parseRequest('agents.output', raw);
      const child = core.background.get(req.agentId);
      if (!child || child.tree !== node.tree)
        throw new CadreError('not_found', `no background run ${req.agentId} in this task tree`);
      const timeoutMs = req.timeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      const waited = await waitLendingSlot(
        core,
        node,
        Promise.race([
          child.done,
          new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs))),
        ]),
      );
      clearTimeout(timer);
      const value: TaskOutput | { agentId: string; status: 'running' } = waited ?? {
        agentId: child.agentId,
        status: 'running',
      };
      return ok(value);
    } catch (error) {
      return fail(error);
    }
  };

  const stop: Capabilities['agents.stop'] = async (raw) => {
    try {
      const req = parseRequest('agents.stop', raw);
      const child = core.background.get(req.agentId);
      if (!child || child.tree !== node.tree)
        throw new CadreError('not_found', `no background run ${req.agentId} in this task tree`);
      const running = core.running.has(child.agentId);
      child.cancel.abort(cancelReason('user_cancelled'));
      await child.done;
      return ok({ agentId: child.agentId, stopped: running });
    } catch (error) {
      return fail(error);
    }
  };

  const todosRead: Capabilities['todos.read'] = async () => ok(node.tree.todos);
  const todosWrite: Capabilities['todos.write'] = async (raw) => {
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
  };

  return {
    'agents.task': task,
    'agents.output': output,
    'agents.stop': stop,
    'todos.read': todosRead,
    'todos.write': todosWrite,
  };
}

/**
 * Waits for a child while the parent's slot serves others, then takes a slot back once the last of
 * its foreground children is done (a parent may wait on several at once).
 */
async function waitLendingSlot<T>(core: RuntimeCore, node: RunNode, work: Promise<T>): Promise<T> {
  if (node.waitingOn++ === 0 && node.holdsSlot) {
    node.holdsSlot = false;
    core.scheduler.release();
  }
  try {
    return await work;
  } finally {
    if (--node.waitingOn === 0 && !node.holdsSlot && core.running.has(node.agentId)) {
      // Returning parents go first: their children are done and they hold a thread already.
      await core.scheduler.acquire(node.depth + 1000, undefined, true);
      // A run that ended while it waited gives the slot straight back.
      if (core.running.has(node.agentId)) node.holdsSlot = true;
      else core.scheduler.release();
    }
  }
}
