// The agent loop: model turn -> tool calls -> tool results -> next turn, until the model ends its
// turn, max_turns is reached, or the host stops the thread. An AsyncGenerator of AgentEvents whose
// return value is the run's WorkerRunResult. All I/O comes in through `deps`.
import { toWire } from '../shared/errors.js';
import type { AgentEvent } from '../shared/events.js';
import type { WorkerRunResult, WorkerRunSpec } from '../shared/run-spec.js';
import { addUsage } from '../shared/usage.js';
import { CONCURRENCY_SAFE_TOOLS } from '../shared/tools.js';
import { eventStamp, type StampEvent } from './loop/agent-event.js';
import { Conversation, textOfBlocks } from './loop/conversation.js';
import { capFanOut } from './loop/fan-out.js';
import { runModelTurn, type TurnOutcome } from './loop/model-turn.js';
import { append, NextMessage } from './loop/next-message.js';
import { RunTally } from './loop/run-tally.js';
import { runToolCalls, type ToolRunContext } from './loop/run-tools.js';
import { serverToolEvents } from './loop/server-tools.js';
import { refusedBlock, toPendingCall, type PendingCall, type ToolRunResult } from './loop/tool-call.js';
import { decideAfterTurn } from './loop/turn-decision.js';
import { turnRequest } from './loop/turn-request.js';
import type { ModelClient, ServerToolDefinition, ToolDefinition } from './models/model-client.js';

/** The tools a run offers, as the loop uses them. */
export interface LoopTools {
  definitions: ToolDefinition[];
  /** Tools the provider runs itself (web search); their calls and results arrive in the reply. */
  serverTools?: ServerToolDefinition[];
  /** Runs one call. Failures the model should see come back as `isError` results. */
  run(name: string, input: unknown, signal?: AbortSignal): Promise<ToolRunResult>;
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

/** Runs one agent to the end of its loop. */
export async function* runAgentLoop(deps: AgentLoopDeps): AsyncGenerator<AgentEvent, WorkerRunResult> {
  const { spec, client, tools, signal } = deps;
  const event = eventStamp(spec, deps.now);
  const offered = new Set(tools.definitions.map((d) => d.name));
  const launches = new Set(['Task', ...spec.extraTools.filter((t) => t.kind === 'agent').map((t) => t.name)]);
  const convo = new Conversation(spec.history, spec.caps.maxConversationChars);
  const next = new NextMessage(convo, event, spec.prompt);
  const tally = new RunTally();
  const running = toolRunContext(deps, event);
  let graceUsed = false;
  let estimateNoted = false;

  for (;;) {
    if (signal.aborted) {
      yield* next.flush();
      return tally.result('failed', { code: 'cancelled', message: 'the run was cancelled' });
    }
    const grace = !graceUsed && deps.grace.requested();
    if (grace) {
      graceUsed = true;
      yield* next.addGraceNote(deps.grace.message().trim() || DEFAULT_GRACE_MESSAGE);
    }
    yield* next.flush();
    if (convo.tooLarge) {
      return tally.result('failed', {
        code: 'too_large',
        message: `the conversation reached ${convo.size} characters, over this run's cap of ${convo.maxChars} (caps.maxConversationChars)`,
      });
    }

    tally.turns++;
    const turn = yield* runModelTurn(client, turnRequest(spec, tools, convo, grace), signal, {
      announceToolCalls: !grace,
      event,
      caps: spec.caps,
    });
    tally.usage = addUsage(tally.usage, turn.usage);
    if (turn.estimated && !estimateNoted) {
      estimateNoted = true;
      const message = `token counts from the ${client.kind} model are estimates (characters ÷ 4)`;
      yield event({ type: 'notice', level: 'info', message });
    }
    yield event({ type: 'usage', usage: tally.usage });
    const end = turn.end;
    if (end === undefined) return tally.result('failed', toWire(turn.error), turn.partial);
    yield* replyEvents(convo, event, end, tally.turns);
    const text = textOfBlocks(end.content);
    tally.addText(text);

    const calls = callsOf(end.content, turn, offered);
    capFanOut(calls, spec.caps, launches);
    const decision = decideAfterTurn({
      grace,
      stopReason: end.stopReason,
      text,
      calls: calls.length,
      turns: tally.turns,
      maxTurns: spec.maxTurns,
    });
    if (decision.kind === 'end') {
      if (decision.unrun !== undefined) {
        const unrun = decision.unrun;
        next.set(calls.map((c) => refusedBlock(c, unrun)));
        yield* next.flush();
      }
      return tally.result(decision.status, decision.error);
    }
    if (calls.length > 0) {
      tally.toolCalls += calls.length;
      next.set(yield* runToolCalls(calls, running));
    }
    tally.continuing = decision.continuing;
    if (decision.askToContinue) next.push({ type: 'text', text: CONTINUE_MESSAGE });
  }
}

/** How the loop's tool calls run: the run's tools, signal and clock, in parallel where safe. */
function toolRunContext(deps: AgentLoopDeps, event: StampEvent): ToolRunContext {
  const { tools, signal, spec } = deps;
  return {
    run: (name, input, s) => tools.run(name, input, s),
    isConcurrencySafe: deps.isConcurrencySafe ?? ((name: string) => CONCURRENCY_SAFE_TOOLS.has(name)),
    signal,
    now: deps.now,
    maxResultChars: spec.caps.maxToolResultChars,
    event: (body) => event(body),
  };
}

type Reply = NonNullable<TurnOutcome['end']>;

/** Appends a finished reply to the conversation; yields its events and the turn's end. */
function* replyEvents(
  convo: Conversation,
  event: StampEvent,
  end: Reply,
  turn: number,
): Generator<AgentEvent> {
  if (end.content.length > 0) yield append(convo, event, { role: 'assistant', content: end.content });
  for (const body of serverToolEvents(end.content)) yield event(body);
  yield event({ type: 'turn-end', turn, stopReason: end.stopReason });
}

/** The reply's tool_use blocks as calls, refused when not offered or broken. */
function callsOf(content: Reply['content'], turn: TurnOutcome, offered: ReadonlySet<string>): PendingCall[] {
  return content
    .filter((b) => b['type'] === 'tool_use')
    .map((b) => toPendingCall(b, turn.uses.get(String(b['id'])), offered));
}
