// One model turn of the loop: stream the reply, turning text deltas and tool calls into events
// as they arrive, and hand back the finished message, its usage and whatever failed.
import { CadreError } from '../../shared/errors.js';
import type { AgentEvent } from '../../shared/events.js';
import { emptyUsage, type Usage } from '../../shared/usage.js';
import type { ReplyCaps } from '../../shared/run-spec.js';
import type { ModelClient, ModelRequest, ModelStreamEventOf } from '../models/model-client.js';
import { ReplyCounter } from '../models/reply-cap.js';

/** The finished message of a turn. */
type MessageEnd = ModelStreamEventOf<'message-end'>;
/** A complete tool call as the stream reported it. */
export type ToolUse = ModelStreamEventOf<'tool-use'>;

/** The body of an event the turn emits (the loop adds identity and time). */
type TurnEventBody =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; toolUseId: string; name: string; input: unknown }
  | { type: 'notice'; level: 'info'; message: string };

/** What a turn produced: the message (absent on failure), its usage, the text so far, the calls. */
export interface TurnOutcome {
  end?: MessageEnd;
  /** The usage the model reported for this message (counted even when the turn failed). */
  usage: Usage;
  /** Text streamed in this turn, kept as the partial result when the turn fails. */
  partial: string;
  uses: Map<string, ToolUse>;
  /** The error that ended the turn, if any. */
  error?: unknown;
  /** The client reported estimated (not measured) usage. */
  estimated: boolean;
}

/** Options of one turn. */
export interface TurnOptions {
  /** Whether tool calls become `tool-call` events (not in the grace turn, where they will not run). */
  announceToolCalls: boolean;
  /** Caps on one reply, held for every client (the anthropic one also holds them on the raw stream). */
  caps?: ReplyCaps;
  event(body: TurnEventBody): AgentEvent;
}

/** Streams one turn; never throws (a failure comes back in `error`). */
export async function* runModelTurn(
  client: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  opts: TurnOptions,
): AsyncGenerator<AgentEvent, TurnOutcome> {
  const out: TurnOutcome = { usage: emptyUsage(), partial: '', uses: new Map(), estimated: false };
  const counter = new ReplyCounter(opts.caps);
  try {
    for await (const e of client.stream(request, signal)) {
      if (e.type === 'text-delta') {
        counter.addText(e.text.length);
        out.partial += e.text;
        yield opts.event({ type: 'text-delta', text: e.text });
      } else if (e.type === 'tool-use') {
        counter.addToolInput(JSON.stringify(e.input).length);
        out.uses.set(e.id, e);
        if (opts.announceToolCalls)
          yield opts.event({ type: 'tool-call', toolUseId: e.id, name: e.name, input: e.input });
      } else if (e.type === 'usage') {
        out.usage = e.usage;
        if (e.estimated === true) out.estimated = true;
      } else out.end = e;
    }
    if (out.end === undefined)
      throw new CadreError('model_error', 'the model stream ended without a complete message');
  } catch (error) {
    delete out.end;
    out.error = error;
  }
  return out;
}
