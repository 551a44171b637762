// The host side of delegation: `agents.task` (spawn a child, in the foreground or background),
// `agents.output`, `agents.stop`, and the tree's todo list. A blocked parent lends its slot to its
// children so nested trees cannot deadlock the pool.
import type { BackgroundHandle, Capabilities } from '../../shared/capabilities.js';
import { CadreError, fail, ok } from '../../shared/errors.js';
import type { TaskOutput } from '../../shared/task.js';
import { detailOf } from '../approvals/preview.js';
import {
  audited,
  authorize,
  parseRequest,
  type CallAudit,
  type EffectContext,
} from '../capabilities/effect-context.js';
import { maySpawn } from './grant.js';
import { cancelReason, launch, type RunNode } from './launcher.js';
import type { RuntimeCore } from './runtime-core.js';

/**
 * Builds the delegation handlers of one run. `ctx` is the run's one authorization context: a launch
 * is judged, asked, audited and (when refused by the grant, the policy or a person) reported as an
 * `effect-refused` event exactly as a file effect or a command is.
 */
export function delegationHandlers(
  core: RuntimeCore,
  node: RunNode,
  ctx: EffectContext,
): Partial<Capabilities> {
  const task: Capabilities['agents.task'] = (raw) =>
    audited<TaskOutput | BackgroundHandle>(
      ctx,
      'agents.task',
      `launch ${String((raw as { subagent_type?: unknown } | null)?.subagent_type ?? '?').slice(0, 100)}`,
      (call) => startChild(core, node, ctx, call, raw),
      raw,
    );

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
 * One `agents.task` call: the grant, the agent type, the tree's budget and launch cap, the one
 * authorization step, then the child, waited for in the foreground or handed back as a background
 * handle. Throws what refuses it (audited and reported by the caller).
 */
async function startChild(
  core: RuntimeCore,
  node: RunNode,
  ctx: EffectContext,
  call: CallAudit,
  raw: unknown,
): Promise<{ value: TaskOutput | BackgroundHandle; reason: string }> {
  const input = parseRequest('agents.task', raw);
  const allowed = maySpawn(node.grant, input.subagent_type);
  if (allowed !== true) throw new CadreError('not_granted', allowed);
  // Throws `not_found` with a did-you-mean for an unknown type.
  core.agent(input.subagent_type);
  if (node.tree.exhausted()) {
    throw new CadreError(
      'budget_exceeded',
      `the agent tree has spent its token budget of ${node.tree.tokenBudget}; no new subagents can start — finish with what you have`,
    );
  }
  // Counted before the approval: a person is never asked about a launch that cannot happen.
  const limit = core.config.maxSubagents;
  if (!node.tree.claimSpawn(limit)) {
    throw new CadreError(
      'limit_reached',
      `limit reached: this agent tree has launched ${limit} subagents, its limit (maxSubagents in .cadre/config.json); no more can start. Do not retry: finish the task with what you have.`,
    );
  }
  let child: RunNode;
  let reason: string;
  try {
    reason = await approveLaunch(ctx, call, core, input);
    child = (await launch(core, input, node.tree, node)).node;
  } catch (error) {
    node.tree.releaseSpawn();
    throw error;
  }
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
}

/**
 * A launch through the one authorization step (the policy, then a person when it asks, with the
 * lead's clock stopped and the wait ended by its cancel signal); throws when refused. Returns the
 * reason it may go ahead.
 */
async function approveLaunch(
  ctx: EffectContext,
  call: CallAudit,
  core: RuntimeCore,
  input: {
    subagent_type: string;
    description?: string | undefined;
    prompt: string;
    resume?: string | undefined;
  },
): Promise<string> {
  const reason = await authorize(
    ctx,
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
    throw new CadreError('invalid_input', `run ${input.resume} is still going; wait for it with TaskOutput`);
  return reason;
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
