// A launched run's life once `launch` has returned: it waits for a scheduler slot, starts its MCP
// tools, runs its worker through the controller, gives the slot back, and ends with its one
// end-of-run record: the tree's accounting, the agent-end event and the transcript's status line.
import type { AgentEvent } from '../../shared/events.js';
import { isCadreError, toWire } from '../../shared/errors.js';
import type { WorkerRunSpec } from '../../shared/run-spec.js';
import { emptyUsage, type TaskOutput, type TaskStatus } from '../../shared/task.js';
import type { McpPlan } from '../capabilities/mcp/run-mcp-tools.js';
import { runToEnd } from '../pool/run-controller.js';
import type { RunEnd } from '../pool/run-end.js';
import type { TranscriptWriter } from '../transcripts/index.js';
import type { WebSearchGrant } from '../web/web-search-grant.js';
import { cancelReason } from './cancel-reason.js';
import type { RunNode } from './launcher.js';
import { modelEndpointOf } from './model-resolve.js';
import { prestartFor } from './prestart.js';
import { runHooks } from './run-hooks.js';
import type { RunPlan } from './run-plan.js';
import type { RuntimeCore } from './runtime-core.js';
import type { AgentTree } from './tree.js';

/** A run `launch` has set up: everything its life needs. */
export interface LaunchedRun {
  core: RuntimeCore;
  node: RunNode;
  plan: RunPlan;
  mcpPlan: McpPlan;
  search: WebSearchGrant;
  transcript: TranscriptWriter;
  /** The run's identity, stamped on the events the host writes for it. */
  stamp: { agentId: string; depth: number; parentId?: string };
  /** Puts an event into the run's transcript and its tree's listeners. */
  deliver(event: AgentEvent): void;
  /** The worker's spec, built once the run's MCP tools are known. */
  buildSpec(): WorkerRunSpec;
  /** Settles `node.done`. */
  settle(output: TaskOutput): void;
}

/** Runs a launched run to its end. Never rejects: every way it ends is its one output. */
export async function liveRun(run: LaunchedRun): Promise<void> {
  const { core, node } = run;
  // Duration counts from when the run gets its slot: time queued behind the concurrency cap is not run time.
  let started = performance.now();
  try {
    await core.scheduler.acquire(node.depth, node.cancel.signal);
    node.holdsSlot = true;
    started = performance.now();
  } catch (error) {
    const cancelled = node.cancel.signal.aborted && !isFault(node.cancel.signal.reason);
    return endRun(run, unstartedEnd(cancelled ? 'cancelled' : 'failed', error), started);
  }
  const end = await runInSlot(run);
  if (node.holdsSlot) core.scheduler.release();
  node.holdsSlot = false;
  endRun(run, end, started);
}

/** Starts the run's MCP tools and its worker, and waits for the controller's end. */
async function runInSlot(run: LaunchedRun): Promise<RunEnd> {
  const { core, node, plan } = run;
  const mcp = await core.mcp.tools(run.mcpPlan, plan.grant, node.cancel.signal);
  node.mcp = mcp;
  for (const message of onceInTree(node.tree, mcp.notices))
    run.deliver({ ...run.stamp, at: Date.now(), type: 'notice', level: 'warn', message });
  const spec = run.buildSpec();
  // A run that may start subagents has threads started for them while it waits for its model.
  const prestart = modelEndpointOf(plan.model) ? prestartFor(core, spec, node.tree) : undefined;
  const hooks = runHooks({ ...run, spec, mcp, prestart });
  const end = await runToEnd(core.executor, spec, hooks, plan.limits, node.cancel.signal).catch(
    (error: unknown): RunEnd => unstartedEnd('crashed', error),
  );
  prestart?.close();
  return end;
}

/**
 * The end of a run no worker reported on: nothing used, nothing done. A cancellation reads as a
 * running run's does (`reason` says who cancelled it).
 */
function unstartedEnd(status: TaskStatus, error: unknown): RunEnd {
  return {
    status,
    result: '',
    error: endError(error),
    usage: emptyUsage(),
    turns: 0,
    toolCalls: 0,
    durationMs: 0,
  };
}

/**
 * Writes the run's one end-of-run record — the tree's accounting, the agent-end event (transcript
 * and listeners), the transcript's status line — and lets go of what the run held.
 */
function endRun(run: LaunchedRun, end: RunEnd, started: number): void {
  const { core, node, transcript } = run;
  const output: TaskOutput = {
    agentId: node.agentId,
    agentType: node.agentType,
    ...(node.parent ? { parentId: node.parent.agentId } : {}),
    status: end.status,
    result: end.result,
    ...(end.error ? { error: end.error } : {}),
    usage: end.usage,
    model: node.modelName,
    durationMs: Math.round(performance.now() - started),
    turns: end.turns,
    toolCalls: end.toolCalls,
    transcriptPath: transcript.path,
  };
  node.tree.record(node.runKey, end.usage);
  run.deliver({ ...run.stamp, at: Date.now(), type: 'agent-end', output });
  core.running.delete(node.agentId);
  node.mcp?.release();
  node.cancel.abort(cancelReason('parent_cancelled'));
  const settle = () => run.settle(output);
  void transcript.close(output).then(settle, settle);
}

/** MCP notices already given in each tree: eight children of one lead say an untrusted server once. */
const mcpNoticesGiven = new WeakMap<AgentTree, Set<string>>();

/** The notices of `messages` this tree has not been given yet (they count as given now). */
export function onceInTree(tree: AgentTree, messages: readonly string[]): string[] {
  const given = mcpNoticesGiven.get(tree) ?? new Set<string>();
  mcpNoticesGiven.set(tree, given);
  const fresh = messages.filter((m) => !given.has(m));
  for (const m of fresh) given.add(m);
  return fresh;
}

/** An abort reason that is a fault of the host (the transcript could not be opened), not a cancel. */
function isFault(reason: unknown): boolean {
  return isCadreError(reason) && reason.code === 'io_error';
}

/** The wire form of what ended an unstarted run; a cancel reason's `endReason` becomes `reason`. */
function endError(error: unknown): NonNullable<RunEnd['error']> {
  const wire = toWire(error);
  const endReason = wire.code === 'cancelled' ? wire.details?.endReason : undefined;
  if (endReason !== 'user_cancelled' && endReason !== 'parent_cancelled') return wire;
  return { code: wire.code, reason: endReason, message: wire.message };
}
