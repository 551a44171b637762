// The host side of delegation: `agents.task` spawns a child, in the foreground or background, after
// the grant, the tree's limits and the one authorization step (effect-context.ts) allow it.
// `agents.output`, `agents.stop` and the tree's todo list are in background-handlers.ts; a blocked
// parent lends its slot to its children (lend-slot.ts) so nested trees cannot deadlock the pool.
import type { BackgroundHandle, Capabilities } from '../../shared/capabilities.js';
import { CadreError } from '../../shared/errors.js';
import type { TaskOutput } from '../../shared/task.js';
import { detailOf, quoted } from '../approvals/preview.js';
import {
  audited,
  authorize,
  parseRequest,
  type CallAudit,
  type EffectContext,
} from '../capabilities/effect-context.js';
import { outputHandler, stopHandler, todoHandlers } from './background-handlers.js';
import { maySpawn } from './grant.js';
import { launch, type RunNode } from './launcher.js';
import { waitLendingSlot } from './lend-slot.js';
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

  return {
    'agents.task': task,
    'agents.output': outputHandler(core, node),
    'agents.stop': stopHandler(core, node),
    ...todoHandlers(node),
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
      preview: () => quoted(input.prompt.slice(0, 2000)),
      detail: () => detailOf(input),
    },
  );
  if (input.resume && core.running.has(input.resume))
    throw new CadreError('invalid_input', `run ${input.resume} is still going; wait for it with TaskOutput`);
  return reason;
}
