// The host side of delegation: `agents.task` (spawn a child, in the foreground or background),
// `agents.output`, `agents.stop`, and the tree's todo list. A blocked parent lends its slot to its
// children so nested trees cannot deadlock the pool.
import type { BackgroundHandle, Capabilities } from '../../shared/capabilities.js';
import { CadreError, fail, ok } from '../../shared/errors.js';
import type { TaskOutput } from '../../shared/task.js';
import {
  allowRules,
  parseRequest,
  refusalError,
  REFUSALS,
  type EffectRefusal,
} from '../capabilities/effect-context.js';
import { decide } from '../capabilities/policy.js';
import { maySpawn } from './grant.js';
import { cancelReason, launch, type RunNode } from './launcher.js';
import type { RuntimeCore } from './runtime-core.js';

/**
 * Builds the delegation handlers of one run. `onRefused` hears of every launch the grant, the
 * policy or an approval refused (the run's `effect-refused` events).
 */
export function delegationHandlers(
  core: RuntimeCore,
  node: RunNode,
  onRefused?: (refusal: EffectRefusal) => void,
): Partial<Capabilities> {
  const task: Capabilities['agents.task'] = async (raw) => {
    try {
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
      try {
        await approveLaunch(core, node, input);
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
        return ok(handle);
      }
      return ok(await waitLendingSlot(core, node, child.done));
    } catch (error) {
      const envelope = fail(error);
      if (!envelope.ok && REFUSALS.has(envelope.error.code)) {
        const type = (raw as { subagent_type?: unknown } | null)?.subagent_type;
        const allow = allowRules(envelope.error.details);
        onRefused?.({
          capability: 'agents.task',
          summary: `launch ${String(type ?? '?').slice(0, 100)}`,
          code: envelope.error.code,
          reason: envelope.error.message,
          ...(allow ? { allow } : {}),
        });
      }
      return envelope;
    }
  };

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

/** The policy's verdict on a launch, and the person's answer when it asks; throws when refused. */
async function approveLaunch(
  core: RuntimeCore,
  node: RunNode,
  input: {
    subagent_type: string;
    description?: string | undefined;
    prompt: string;
    resume?: string | undefined;
  },
): Promise<void> {
  const verdict = decide({
    capability: 'agents.task',
    agentType: input.subagent_type,
    projectDir: core.cwd,
    mode: node.grant.mode,
    rules: core.rules,
  });
  if (verdict.decision === 'deny')
    throw refusalError(verdict.code ?? 'permission_denied', verdict.reason, verdict.suggestions);
  if (verdict.decision === 'ask') {
    const answer = await core.approvals.request({
      agentId: node.agentId,
      agentType: node.agentType,
      capability: 'agents.task',
      summary: `launch a ${input.subagent_type} subagent: ${input.description ?? input.prompt.slice(0, 80)}`,
      reason: verdict.reason,
      ...(verdict.suggestions ? { suggestions: verdict.suggestions } : {}),
    });
    if (answer.decision !== 'allow')
      throw refusalError('approval_denied', answer.reason, verdict.suggestions);
  }
  if (input.resume && core.running.has(input.resume))
    throw new CadreError('invalid_input', `run ${input.resume} is still going; wait for it with TaskOutput`);
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
