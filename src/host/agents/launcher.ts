// Starts one agent run: plans it (definition, grant, model, limits: run-plan.ts), claims a resume,
// opens its transcript, ties it to its parent, announces it, and hands it to its lifecycle
// (run-lifecycle.ts), which ends it with one TaskOutput. Children started through `agents.task`
// come back here with their parent's node.
import { setMaxListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { LoadedAgent } from '../../shared/agent-definition.js';
import { openingOf } from '../../shared/agent-definition.js';
import type { AgentEvent, ConversationMessage } from '../../shared/events.js';
import type { ExtraToolDef, WorkerRunSpec } from '../../shared/run-spec.js';
import type { TaskInput, TaskOutput } from '../../shared/task.js';
import type { RunMcpTools } from '../capabilities/mcp/run-mcp-tools.js';
import type { TranscriptWriter } from '../transcripts/index.js';
import type { WebSearchGrant } from '../web/web-search-grant.js';
import { cancelReason } from './cancel-reason.js';
import { agentCatalogue } from './catalogue.js';
import { maySpawn, type Grant } from './grant.js';
import { workerModelConfig } from './model-resolve.js';
import { claimResume } from './resume-claim.js';
import { liveRun, onceInTree } from './run-lifecycle.js';
import { planRun, type RunPlan } from './run-plan.js';
import type { RuntimeCore } from './runtime-core.js';
import type { AgentTree } from './tree.js';
import { offerWebSearch } from './web-search-run.js';

/** Re-exported for the runtime and the delegation handlers, which cancel runs they launched. */
export { cancelReason } from './cancel-reason.js';

/** A run in progress, as its children and the runtime see it. */
export interface RunNode {
  agentId: string;
  agentType: string;
  depth: number;
  parent: RunNode | undefined;
  grant: Grant;
  modelName: string;
  tree: AgentTree;
  cancel: AbortController;
  transcriptPath: string;
  done: Promise<TaskOutput>;
  /** Whether the run currently holds a scheduler slot (a blocked parent lends it out). */
  holdsSlot: boolean;
  /** The project directory this run works in (the runtime's, or the task's own `cwd`). */
  cwd: string;
  /** Foreground children this run is waiting on right now. */
  waitingOn: number;
  /** This run's key in the tree's accounting (a resumed run keeps its agentId but not its usage). */
  runKey: string;
  /** The MCP tools this run was offered (set once its servers have started). */
  mcp?: RunMcpTools;
  /** Puts an event of this run into its transcript and its tree's listeners (approvals use it). */
  report: (event: AgentEvent) => void;
}

/** What `launch` returns at once; `node.done` settles with the output. */
export interface Launch {
  node: RunNode;
}

/** Starts a run. Throws a CadreError (at once) for requests that cannot start. */
export async function launch(
  core: RuntimeCore,
  input: TaskInput,
  tree: AgentTree,
  parent?: RunNode,
): Promise<Launch> {
  const def = core.agent(input.subagent_type);
  const plan = planRun({
    def,
    input,
    parent,
    config: core.config,
    env: core.env,
    options: core.options,
    cassette: core.cassette,
  });
  // Which MCP servers the run may use, trusted and with their configuration expanded: a missing
  // variable refuses the launch here, naming the server and the field. They start once it has a slot.
  const mcpPlan = await core.mcp.plan(def, plan.grant);
  const resumed = input.resume
    ? await claimResume(core, input.resume, def.name, tree, parent !== undefined)
    : { messages: [], warnings: [] };
  const agentId = input.resume ?? `${def.name}-${randomUUID().slice(0, 8)}`;
  const cwd = await runCwd(core, input, parent);
  // The launch does not wait for the file: a transcript that cannot be opened cancels the run with
  // an io_error (below), its lifecycle ends it as failed, and what it appended was only held in memory.
  const transcript = core.startTranscript(agentId, input.resume !== undefined, {
    agentType: def.name,
    tree: tree.uid,
    ...(parent ? { parentId: parent.agentId } : {}),
  });
  const { node, settle } = newRunNode({ agentId, def, plan, tree, parent, cwd, transcript });
  followParent(node, input);
  core.running.set(agentId, node);
  if (input.resume) core.releaseResume(input.resume);
  transcript.ready.catch((error: unknown) => node.cancel.abort(error));

  const stamp = {
    agentId,
    depth: node.depth,
    at: Date.now(),
    ...(parent ? { parentId: parent.agentId } : {}),
  };
  const search = announce({ core, node, def, input, plan, stamp }, resumed.warnings, mcpPlan.notices);
  void liveRun({
    core,
    node,
    plan,
    mcpPlan,
    search,
    transcript,
    stamp,
    deliver: node.report,
    buildSpec: () => buildSpec(core, node, def, input, resumed.messages, plan, search),
    settle,
  });
  return { node };
}

/** A run's node, and the function that settles its `done`. */
function newRunNode(run: {
  agentId: string;
  def: LoadedAgent;
  plan: RunPlan;
  tree: AgentTree;
  parent: RunNode | undefined;
  cwd: string;
  transcript: TranscriptWriter;
}): { node: RunNode; settle: (output: TaskOutput) => void } {
  const { agentId, tree, transcript } = run;
  let settle!: (output: TaskOutput) => void;
  const node: RunNode = {
    agentId,
    agentType: run.def.name,
    depth: run.plan.depth,
    parent: run.parent,
    grant: run.plan.grant,
    modelName: run.plan.model.model,
    tree,
    cancel: new AbortController(),
    transcriptPath: transcript.path,
    done: new Promise<TaskOutput>((resolve) => (settle = resolve)),
    holdsSlot: false,
    cwd: run.cwd,
    waitingOn: 0,
    runKey: `${agentId}#${randomUUID()}`,
    report: (event) => {
      transcript.append(event);
      tree.emit(event);
    },
  };
  return { node, settle };
}

/** The directory a run works in; a resume claimed for it is given back if there is none. */
async function runCwd(core: RuntimeCore, input: TaskInput, parent: RunNode | undefined): Promise<string> {
  try {
    return parent ? parent.cwd : input.cwd ? await core.projectDir(input.cwd) : core.cwd;
  } catch (error) {
    if (input.resume) core.releaseResume(input.resume);
    throw error;
  }
}

/** Ties a child to its parent's end: a foreground child (or one outside a session) is cancelled with it. */
function followParent(node: RunNode, input: TaskInput): void {
  // A parent holds one listener per running child: no warning at eleven, and none left behind.
  setMaxListeners(0, node.cancel.signal);
  const parent = node.parent;
  // In a session (the chat), a background run belongs to the session, not to the turn that started
  // it: it outlives its parent's turn and is stopped only by name or when the session ends.
  const detached = parent !== undefined && input.run_in_background === true && node.tree.detachBackground;
  if (!parent || detached) return;
  // A parent that ended while this child was being set up takes the child with it.
  if (parent.cancel.signal.aborted) return node.cancel.abort(cancelReason('parent_cancelled'));
  const signal = parent.cancel.signal;
  const onParentCancel = () => node.cancel.abort(cancelReason('parent_cancelled'));
  signal.addEventListener('abort', onParentCancel, { once: true });
  void node.done.then(() => signal.removeEventListener('abort', onParentCancel));
}

/** What `announce` tells of a run. */
interface Announced {
  core: RuntimeCore;
  node: RunNode;
  def: LoadedAgent;
  input: TaskInput;
  plan: RunPlan;
  stamp: RunStamp;
}

/** The run's stamp on the events the host writes for it. */
type RunStamp = { agentId: string; depth: number; at: number; parentId?: string };

/**
 * Delivers the run's agent-start and the notices of its start (a resume's repairs, WebSearch not
 * offered, MCP servers, the offline model); returns its web search grant.
 */
function announce(run: Announced, repairs: readonly string[], mcpNotices: readonly string[]): WebSearchGrant {
  const { core, node, def, input, plan, stamp } = run;
  const deliver = node.report;
  deliver({
    ...stamp,
    type: 'agent-start',
    agentType: def.name,
    model: plan.model.model,
    description: input.description ?? def.description,
    prompt: input.prompt,
    ...(node.parent && input.run_in_background ? { background: true } : {}),
  });
  for (const repair of repairs)
    deliver({ ...stamp, type: 'notice', level: 'warn', message: `resumed with a repair: ${repair}` });
  // Told only to a run whose definition names WebSearch: one that inherits every tool is not told
  // about each it lacks (as at load time), or every run on a proxy would say so.
  const search = offerWebSearch(core, node, plan.model, (message) => {
    if (def.inheritsMcpTools !== true)
      deliver({ ...stamp, at: Date.now(), type: 'notice', level: 'info', message });
  });
  for (const message of onceInTree(node.tree, mcpNotices))
    deliver({ ...stamp, type: 'notice', level: 'warn', message });
  if (plan.model.provider === 'offline' && node.depth === 0) {
    deliver({
      ...stamp,
      type: 'notice',
      level: 'warn',
      message:
        'no API key configured: running on the embedded offline model (set ANTHROPIC_API_KEY for a real one)',
    });
  }
  return search;
}

/** The worker's spec of one run, built once the run's MCP tools are known. */
function buildSpec(
  core: RuntimeCore,
  node: RunNode,
  def: LoadedAgent,
  input: TaskInput,
  history: ConversationMessage[],
  plan: RunPlan,
  search: WebSearchGrant,
): WorkerRunSpec {
  const grant = plan.grant;
  const opening = openingOf(def.prompt, input.prompt, history.length > 0);
  const catalogue = grant.tools.includes('Task')
    ? agentCatalogue(core.registry.agents, def.name, (name) => maySpawn(grant, name) === true)
    : '';
  // Agents exposed as tools are subagents too: offered only where the grant may spawn them.
  const extraTools: ExtraToolDef[] = [
    ...core
      .exposedTools(def.name)
      .filter((t) => t.agentType !== undefined && maySpawn(grant, t.agentType) === true),
    ...(node.mcp?.defs ?? []),
  ];
  return {
    agentId: node.agentId,
    ...(node.parent ? { parentId: node.parent.agentId } : {}),
    depth: node.depth,
    agentType: def.name,
    description: input.description ?? def.description,
    system: opening.system + catalogue,
    prompt: opening.message,
    history,
    tools: search.tools,
    extraTools,
    ...(grant.taskTypes ? { taskTypes: grant.taskTypes } : {}),
    ...(search.webSearch ? { webSearch: search.webSearch } : {}),
    model: workerModelConfig(plan.model),
    maxTurns: plan.maxTurns,
    permissionMode: grant.mode,
    cwd: node.cwd,
    caps: plan.caps,
  };
}
