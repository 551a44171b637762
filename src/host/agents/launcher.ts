// Starts one agent run: resolves its definition, grant, model and limits; opens its transcript;
// waits for a slot; runs it in a worker; and turns how it ended into one TaskOutput. Children
// started through `agents.task` come back here with their parent's node.
import { setMaxListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { LoadedAgent } from '../../shared/agent-definition.js';
import { openingOf } from '../../shared/agent-definition.js';
import type { AgentEvent, ConversationMessage } from '../../shared/events.js';
import { CadreError, isCadreError, toWire } from '../../shared/errors.js';
import {
  DEFAULT_CAPS,
  maxModelLineBytes,
  type ExtraToolDef,
  type WorkerRunSpec,
} from '../../shared/run-spec.js';
import { emptyUsage, totalTokens, type TaskInput, type TaskOutput } from '../../shared/task.js';
import { capabilitiesFor } from '../../shared/tools.js';
import type { RunMcpTools } from '../capabilities/mcp/run-mcp-tools.js';
import type { RunEnd } from '../pool/run-controller.js';
import { runToEnd } from '../pool/run-controller.js';
import { agentCatalogue } from './catalogue.js';
import { childGrant, maySpawn, rootGrant, type Grant } from './grant.js';
import { modelConfigFor, modelEndpointOf, pickModel, workerModelConfig } from './model-resolve.js';
import type { RuntimeCore } from './runtime-core.js';
import { prestartFor } from './prestart.js';
import { claimResume } from './resume-claim.js';
import type { AgentTree } from './tree.js';
import type { WebSearchGrant } from '../web/web-search-grant.js';
import { auditSearch, offerWebSearch } from './web-search-run.js';

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
  const grant = parent
    ? childGrant(parent.grant, def, input.permission_mode)
    : rootGrant(def, input.permission_mode ?? core.config.permissions.defaultMode, core.config.maxDepth);
  const modelName =
    core.options.model && !parent
      ? pickModel(input.model ?? core.options.model, def.model, undefined, core.config)
      : pickModel(input.model, def.model, parent?.modelName, core.config);
  const timeoutS = input.timeout ?? def.timeout ?? core.config.timeout;
  const idleS = def.idleTimeout ?? core.config.idleTimeout;
  const model = modelConfigFor(modelName, core.config, core.env, {
    streamIdleTimeoutMs: Math.min(idleS * 1000, timeoutS * 1000),
    ...(core.cassette !== undefined ? { cassette: core.cassette } : {}),
    ...(core.options.record ? { record: true } : {}),
  });
  if (core.options.record && model.provider === 'offline')
    throw new CadreError(
      'invalid_input',
      `options.record: this run would use the embedded offline model, which sends no model requests to record; set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) or pass options.model provider:model to record a real model`,
    );
  // Which MCP servers the run may use, trusted and with their configuration expanded: a missing
  // variable refuses the launch here, naming the server and the field. They start once it has a slot.
  const mcpPlan = await core.mcp.plan(def, grant);

  let history: ConversationMessage[] = [];
  let repairs: string[] = [];
  let agentId = `${def.name}-${randomUUID().slice(0, 8)}`;
  if (input.resume) {
    ({ messages: history, warnings: repairs } = await claimResume(
      core,
      input.resume,
      def.name,
      tree,
      parent !== undefined,
    ));
    agentId = input.resume;
  }
  let cwd: string;
  try {
    cwd = parent ? parent.cwd : input.cwd ? await core.projectDir(input.cwd) : core.cwd;
  } catch (error) {
    if (input.resume) core.releaseResume(input.resume);
    throw error;
  }
  // The launch does not wait for the file: a transcript that cannot be opened ends the run as
  // failed (io_error), below, and what it appended meanwhile was only held in memory.
  const transcript = core.startTranscript(agentId, input.resume !== undefined, {
    agentType: def.name,
    tree: tree.uid,
    ...(parent ? { parentId: parent.agentId } : {}),
  });
  const depth = parent ? parent.depth + 1 : 0;
  let resolveDone!: (output: TaskOutput) => void;
  const node: RunNode = {
    agentId,
    agentType: def.name,
    depth,
    parent,
    grant,
    modelName: model.model,
    tree,
    cancel: new AbortController(),
    transcriptPath: transcript.path,
    done: new Promise<TaskOutput>((resolve) => (resolveDone = resolve)),
    holdsSlot: false,
    cwd,
    waitingOn: 0,
    runKey: `${agentId}#${randomUUID()}`,
    report: () => undefined,
  };
  // A parent holds one listener per running child: no warning at eleven, and none left behind.
  setMaxListeners(0, node.cancel.signal);
  // In a session (the chat), a background run belongs to the session, not to the turn that started
  // it: it outlives its parent's turn and is stopped only by name or when the session ends.
  const detached = parent !== undefined && input.run_in_background === true && tree.detachBackground;
  if (parent && !detached) {
    // A parent that ended while this child was being set up takes the child with it.
    if (parent.cancel.signal.aborted) node.cancel.abort(cancelReason('parent_cancelled'));
    else {
      const signal = parent.cancel.signal;
      const onParentCancel = () => node.cancel.abort(cancelReason('parent_cancelled'));
      signal.addEventListener('abort', onParentCancel, { once: true });
      void node.done.then(() => signal.removeEventListener('abort', onParentCancel));
    }
  }
  core.running.set(agentId, node);
  if (input.resume) core.releaseResume(input.resume);
  transcript.ready.catch((error: unknown) => node.cancel.abort(error));

  const stamp = { agentId, depth, at: Date.now(), ...(parent ? { parentId: parent.agentId } : {}) };
  const deliver = (event: AgentEvent) => {
    transcript.append(event);
    tree.emit(event);
  };
  node.report = deliver;
  deliver({
    ...stamp,
    type: 'agent-start',
    agentType: def.name,
    model: model.model,
    description: input.description ?? def.description,
    prompt: input.prompt,
    ...(parent && input.run_in_background ? { background: true } : {}),
  });
  for (const repair of repairs)
    deliver({ ...stamp, type: 'notice', level: 'warn', message: `resumed with a repair: ${repair}` });
  // Told only to a run whose definition names WebSearch: one that inherits every tool is not told
  // about each it lacks (as at load time), or every run on a proxy would say so.
  const search = offerWebSearch(core, node, model, (message) => {
    if (def.inheritsMcpTools !== true)
      deliver({ ...stamp, at: Date.now(), type: 'notice', level: 'info', message });
  });
  for (const message of onceInTree(tree, mcpPlan.notices))
    deliver({ ...stamp, type: 'notice', level: 'warn', message });
  if (model.provider === 'offline' && depth === 0) {
    deliver({
      ...stamp,
      type: 'notice',
      level: 'warn',
      message:
        'no API key configured: running on the embedded offline model (set ANTHROPIC_API_KEY for a real one)',
    });
  }

  // Duration counts from when the run gets its slot: time queued behind the concurrency cap is not run time.
  let started = performance.now();
  const finish = (end: RunEnd) => {
    const output: TaskOutput = {
      agentId,
      agentType: def.name,
      ...(parent ? { parentId: parent.agentId } : {}),
      status: end.status,
      result: end.result,
      ...(end.error ? { error: end.error } : {}),
      usage: end.usage,
      model: model.model,
      durationMs: Math.round(performance.now() - started),
      turns: end.turns,
      toolCalls: end.toolCalls,
      transcriptPath: transcript.path,
    };
    tree.record(node.runKey, end.usage);
    deliver({ ...stamp, at: Date.now(), type: 'agent-end', output });
    core.running.delete(agentId);
    node.mcp?.release();
    node.cancel.abort(cancelReason('parent_cancelled'));
    void transcript.close(output).then(
      () => resolveDone(output),
      () => resolveDone(output),
    );
  };

  void (async () => {
    try {
      await core.scheduler.acquire(depth, node.cancel.signal);
      node.holdsSlot = true;
      started = performance.now();
    } catch (error) {
      const wire = toWire(error);
      const cancelled = node.cancel.signal.aborted && !isFault(node.cancel.signal.reason);
      finish({
        status: cancelled ? 'cancelled' : 'failed',
        result: '',
        error: wire,
        usage: emptyUsage(),
        turns: 0,
        toolCalls: 0,
        durationMs: 0,
      });
      return;
    }
    const mcp = await core.mcp.tools(mcpPlan, grant, node.cancel.signal);
    node.mcp = mcp;
    for (const message of onceInTree(tree, mcp.notices))
      deliver({ ...stamp, at: Date.now(), type: 'notice', level: 'warn', message });
    const spec = buildSpec(core, node, def, input, history, workerModelConfig(model), grant, search);
    const runBudget = input.token_budget ?? def.tokenBudget;
    const endpoint = modelEndpointOf(model);
    // A run that may start subagents has threads started for them while it waits for its model.
    const prestart = endpoint ? prestartFor(core, spec, tree) : undefined;
    const end = await runToEnd(
      core.executor,
      spec,
      {
        granted: [
          // mcp.call exists on the port only when the run was offered MCP tools.
          ...capabilitiesFor(search.tools).filter((c) => c !== 'mcp.call'),
          ...(spec.extraTools.some((t) => t.kind === 'agent') ? (['agents.task'] as const) : []),
          ...(mcp.table.size > 0 ? (['mcp.call'] as const) : []),
        ],
        handlers: (ctx) =>
          core.handlersFor(node, {
            ...ctx,
            notice: (message) =>
              deliver({ ...stamp, at: Date.now(), type: 'notice', level: 'warn', message }),
            onRefused: (refusal) => deliver({ ...stamp, at: Date.now(), type: 'effect-refused', ...refusal }),
          }),
        onEvent: (event) => {
          if (event.type === 'model-exchange') return core.recordExchange(event.exchange);
          if (event.type === 'tool-call' && event.name === 'WebSearch') auditSearch(core, node, event.input);
          if (event.type === 'usage') tree.record(node.runKey, event.usage);
          deliver(event);
        },
        checkBudget: (usage) => {
          if (runBudget !== undefined && totalTokens(usage) >= runBudget)
            return `run token budget of ${runBudget} exhausted (${totalTokens(usage)} tokens used)`;
          if (tree.exhausted()) return `tree token budget of ${tree.tokenBudget} exhausted`;
          return undefined;
        },
        ...(endpoint
          ? {
              model: {
                ...endpoint,
                agentId,
                agentType: def.name,
                projectDir: node.cwd,
                mode: grant.mode,
                audit: core.audit,
                maxLineBytes: maxModelLineBytes(spec.caps),
                ...(prestart ? { observer: prestart } : {}),
              },
            }
          : {}),
      },
      { timeoutMs: timeoutS * 1000, idleTimeoutMs: idleS * 1000 },
      node.cancel.signal,
    ).catch((error: unknown): RunEnd => ({
      status: 'crashed',
      result: '',
      error: toWire(error),
      usage: emptyUsage(),
      turns: 0,
      toolCalls: 0,
      durationMs: 0,
    }));
    prestart?.close();
    if (node.holdsSlot) core.scheduler.release();
    node.holdsSlot = false;
    finish(end);
  })();
  return { node };
}

function buildSpec(
  core: RuntimeCore,
  node: RunNode,
  def: LoadedAgent,
  input: TaskInput,
  history: ConversationMessage[],
  model: WorkerRunSpec['model'],
  grant: Grant,
  search: WebSearchGrant,
): WorkerRunSpec {
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
    model,
    maxTurns: input.max_turns ?? def.maxTurns ?? core.options.maxTurns ?? 50,
    permissionMode: grant.mode,
    cwd: node.cwd,
    caps: runCaps(core.config),
  };
}

/**
 * A run's caps: the defaults, with the reply and fan-out caps from config. The conversation cap is never below
 * one whole reply, so raising the reply caps cannot end a run at its next turn for the reply the
 * caps just allowed.
 */
function runCaps(
  config: Pick<
    RuntimeCore['config'],
    'maxReplyChars' | 'maxToolInputChars' | 'maxToolCallsPerMessage' | 'maxTasksPerMessage'
  >,
): WorkerRunSpec['caps'] {
  const { maxReplyChars, maxToolInputChars, maxToolCallsPerMessage, maxTasksPerMessage } = config;
  const maxConversationChars = Math.max(DEFAULT_CAPS.maxConversationChars, maxReplyChars + maxToolInputChars);
  return {
    ...DEFAULT_CAPS,
    maxReplyChars,
    maxToolInputChars,
    maxConversationChars,
    maxToolCallsPerMessage,
    maxTasksPerMessage,
  };
}

/** MCP notices already given in each tree: eight children of one lead say an untrusted server once. */
const mcpNoticesGiven = new WeakMap<AgentTree, Set<string>>();

/** The notices of `messages` this tree has not been given yet (they count as given now). */
function onceInTree(tree: AgentTree, messages: readonly string[]): string[] {
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

/** The abort reason of a cancelled run: a `cancelled` error that says who cancelled it. */
export function cancelReason(endReason: 'user_cancelled' | 'parent_cancelled'): CadreError {
  return new CadreError(
    'cancelled',
    endReason === 'parent_cancelled'
      ? 'cancelled because its parent ended'
      : 'cancelled by the caller (stop() or Ctrl-C)',
    { endReason },
  );
}
