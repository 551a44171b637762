// The agent loop: model turn -> tool calls -> tool results -> next turn, until the model ends its
// turn, max_turns is reached, or the host stops the thread. An AsyncGenerator of AgentEvents whose
// return value is the run's WorkerRunResult. All I/O comes in through `deps`.
import { toWire, type WireError } from '../shared/errors.js';
import type { AgentEvent, ConversationMessage } from '../shared/events.js';
import type { WorkerRunResult, WorkerRunSpec } from '../shared/run-spec.js';
import { addUsage, emptyUsage, type Usage } from '../shared/task.js';
import { CONCURRENCY_SAFE_TOOLS } from '../shared/tools.js';
import { Conversation, textOfBlocks, type Block } from './loop/conversation.js';
import { runModelTurn, type ToolUse } from './loop/model-turn.js';
import { capFanOut } from './loop/fan-out.js';
import { runToolCalls, type PendingCall } from './loop/run-tools.js';
import type { ModelClient, ModelRequest, ToolDefinition } from './models/model-client.js';

/** The tools a run offers, as the loop uses them. */
export interface LoopTools {
  definitions: ToolDefinition[];
  /** Runs one call. Failures the model should see come back as `isError` results. */
  run(name: string, input: unknown, signal?: AbortSignal): Promise<{ content: string; isError: boolean }>;
}

/** Everything the loop touches, injected. */
export interface AgentLoopDeps {
  spec: WorkerRunSpec;
  client: ModelClient;
  tools: LoopTools;
  /** Tools safe to run in parallel within a turn (default: CONCURRENCY_SAFE_TOOLS). */
  isConcurrencySafe?: (name: string) => boolean;
  now: () => number;
  /** Fires on cancel: the model call and running tools are aborted. */
  signal: AbortSignal;
  /** The host's request for one last tool-less turn before the deadline. */
  grace: { requested(): boolean; message(): string };
}

/** Sent when the host asks for the grace turn without a message of its own. */
export const DEFAULT_GRACE_MESSAGE =
  'Time is almost up: stop using tools and write your final report now, with everything you have found so far.';

/** Sent after a reply cut off by the output token limit. */
export const CONTINUE_MESSAGE =
  'Your reply hit the output token limit (max_tokens) and was cut off. Continue exactly where you stopped, without repeating anything.';

type Body = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, 'agentId' | 'parentId' | 'depth' | 'at'>
    : never
  : never;

/** Runs one agent to the end of its loop. */
export async function* runAgentLoop(deps: AgentLoopDeps): AsyncGenerator<AgentEvent, WorkerRunResult> {
  const { spec, client, tools, signal } = deps;
  const event = (body: Body): AgentEvent =>
    ({
      ...body,
      agentId: spec.agentId,
      ...(spec.parentId === undefined ? {} : { parentId: spec.parentId }),
      depth: spec.depth,
      at: deps.now(),
    }) as AgentEvent;
  const isSafe = deps.isConcurrencySafe ?? ((name: string) => CONCURRENCY_SAFE_TOOLS.has(name));
  const offered = new Set(tools.definitions.map((d) => d.name));
  const launches = new Set(['Task', ...spec.extraTools.filter((t) => t.kind === 'agent').map((t) => t.name)]);
  const convo = new Conversation(spec.history, spec.caps.maxConversationChars);

  let usage: Usage = emptyUsage();
  let turns = 0;
  let toolCalls = 0;
  let answer = ''; // text of the latest answer, across continuations
  let lastText = ''; // the latest non-empty answer
  let continuing = false;
  let graceUsed = false;
  let estimateNoted = false;
  let pending: Block[] = [{ type: 'text', text: spec.prompt }]; // the next user message

  const result = (status: WorkerRunResult['status'], error?: WireError, partial = ''): WorkerRunResult => {
    const text =
      status === 'failed' && partial.trim() !== ''
        ? continuing
          ? answer + partial
          : partial
        : answer.trim() !== ''
          ? answer
          : lastText;
    const out: WorkerRunResult = { status, result: text, usage, turns, toolCalls };
    if (error !== undefined) out.error = error;
    return out;
  };
  const append = (message: ConversationMessage): AgentEvent => {
    convo.append(message);
    return event({ type: 'message-append', message });
  };
  const flushPending = (): AgentEvent | undefined => {
    if (pending.length === 0) return undefined;
    const content =
      pending.length === 1 && pending[0]?.['type'] === 'text' ? String(pending[0]['text']) : pending;
    pending = [];
    return append({ role: 'user', content });
  };

  for (;;) {
    if (signal.aborted) {
      const flushed = flushPending();
      if (flushed) yield flushed;
      return result('failed', { code: 'cancelled', message: 'the run was cancelled' });
    }
    const grace = !graceUsed && deps.grace.requested();
    if (grace) {
      graceUsed = true;
      // After tool results the note shares their message; after a prompt it gets its own, so the task stays apart.
      if (!pending.some((b) => b['type'] === 'tool_result')) {
        const prompt = flushPending();
        if (prompt) yield prompt;
      }
      pending.push({ type: 'text', text: deps.grace.message().trim() || DEFAULT_GRACE_MESSAGE });
    }
    const flushed = flushPending();
    if (flushed) yield flushed;
    if (convo.tooLarge) {
      return result('failed', {
        code: 'too_large',
        message: `the conversation reached ${convo.size} characters, over this run's cap of ${convo.maxChars} (caps.maxConversationChars)`,
      });
    }

    const request: ModelRequest = {
      model: spec.model.model,
      system: spec.system,
      messages: convo.snapshot(),
      tools: tools.definitions,
      maxTokens: spec.model.maxTokens,
    };
    if (grace) {
      // The API rejects tool blocks in a conversation without tool definitions: keep them, forbid their use.
      if (convo.hasToolBlocks && tools.definitions.length > 0) request.toolChoice = 'none';
      else request.tools = [];
    }

    turns++;
    const turn = yield* runModelTurn(client, request, signal, {
      announceToolCalls: !grace,
      event,
      caps: spec.caps,
    });
    usage = addUsage(usage, turn.usage);
    if (turn.estimated && !estimateNoted) {
      estimateNoted = true;
      const message = `token counts from the ${client.kind} model are estimates (characters ÷ 4)`;
      yield event({ type: 'notice', level: 'info', message });
    }
    yield event({ type: 'usage', usage });
    const end = turn.end;
    if (end === undefined) return result('failed', toWire(turn.error), turn.partial);
    if (end.content.length > 0) yield append({ role: 'assistant', content: end.content });
    yield event({ type: 'turn-end', turn: turns, stopReason: end.stopReason });

    const text = textOfBlocks(end.content);
    answer = continuing ? answer + text : text;
    if (answer.trim() !== '') lastText = answer;
    continuing = false;

    const calls: PendingCall[] = end.content
      .filter((b) => b['type'] === 'tool_use')
      .map((b) => toPendingCall(b, turn.uses.get(String(b['id'])), offered));
    capFanOut(calls, spec.caps, launches);

    if (grace) {
      // A model that calls tools anyway gets them answered unrun, so the transcript stays resumable.
      if (calls.length > 0) {
        pending = calls.map((c) =>
          refusedBlock(c, 'not run: this was the final report turn, tools were no longer available.'),
        );
        yield flushPending() as AgentEvent;
      }
      return result('completed');
    }
    if (end.stopReason === 'refusal') {
      return result('failed', {
        code: 'model_refusal',
        message: `the model refused to continue (stop_reason refusal)${text ? `: ${text.slice(0, 500)}` : ''}`,
        details: { reason: 'refusal' },
      });
    }
    if (end.stopReason === 'model_context_window_exceeded') {
      return result('failed', {
        code: 'too_large',
        message: "the conversation no longer fits the model's context window",
      });
    }
    const resend = end.stopReason === 'pause_turn';
    const cutOff = end.stopReason === 'max_tokens';
    if (calls.length === 0 && !resend && !cutOff) return result('completed');

    if (turns >= spec.maxTurns) {
      pending = calls.map((c) =>
        refusedBlock(c, `not run: the run reached its limit of ${spec.maxTurns} turns (max_turns).`),
      );
      const last = flushPending();
      if (last) yield last;
      return result('max_turns', {
        code: 'max_turns',
        message: `the run reached its limit of ${spec.maxTurns} turns before the model finished`,
      });
    }
    if (calls.length > 0) {
      toolCalls += calls.length;
      pending = yield* runToolCalls(calls, {
        run: (name, input, s) => tools.run(name, input, s),
        isConcurrencySafe: isSafe,
        signal,
        now: deps.now,
        maxResultChars: spec.caps.maxToolResultChars,
        event: (body) => event(body),
      });
    }
    // pause_turn: the assistant message goes back as it is and the model picks up its own turn.
    if (resend || cutOff) continuing = true;
    if (cutOff) pending.push({ type: 'text', text: CONTINUE_MESSAGE });
  }
}

/** A tool_use block as a call to run, or to refuse when it names a tool not offered or its input is broken. */
function toPendingCall(block: Block, use: ToolUse | undefined, offered: ReadonlySet<string>): PendingCall {
  const call: PendingCall = {
    id: String(block['id']),
    name: String(block['name']),
    input:
      typeof block['input'] === 'object' && block['input'] !== null
        ? (block['input'] as Record<string, unknown>)
        : {},
  };
  if (!offered.has(call.name)) {
    call.refusal = `not_granted: no tool named "${call.name}" is offered to this agent; available: ${[...offered].join(', ') || 'none'}.`;
  } else if (use?.inputError !== undefined) {
    call.refusal = `invalid_input: ${use.inputError}. The call was not run (a reply cut off at max_tokens leaves its last tool call incomplete); send it again with complete input.`;
  }
  return call;
}

function refusedBlock(call: PendingCall, text: string): Block {
  return { type: 'tool_result', tool_use_id: call.id, content: text, is_error: true };
}
