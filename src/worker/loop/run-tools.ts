// Runs one model turn's tool calls: consecutive concurrency-safe calls together, any other call
// alone and in order, so a Read after an Edit sees the edit. Results keep the model's order;
// `tool-result` events go out as each call finishes.
import { toWire } from '../../shared/errors.js';
import type { AgentEvent } from '../../shared/events.js';
import type { Block } from './conversation.js';
import { runToolCall, type PendingCall, type ToolCallContext, type ToolOutcome } from './tool-call.js';

/** What running a turn's tools needs from the loop. */
export interface ToolRunContext extends ToolCallContext {
  isConcurrencySafe(name: string): boolean;
  /** Builds an event with the run's identity and timestamp. */
  event(body: ToolResultBody): AgentEvent;
}

/** The body of a tool-result event. */
type ToolResultBody = Omit<
  Extract<AgentEvent, { type: 'tool-result' }>,
  'agentId' | 'parentId' | 'depth' | 'at'
>;

/** Longest result preview carried by a tool-result event (the full text is in the conversation). */
const PREVIEW_CHARS = 2_000;

/** Runs the calls; yields tool-result events; returns the tool_result blocks in call order. */
export async function* runToolCalls(
  calls: readonly PendingCall[],
  ctx: ToolRunContext,
): AsyncGenerator<AgentEvent, Block[]> {
  const outcomes: ToolOutcome[] = [];
  for (const batch of batches(calls, ctx)) {
    const base = outcomes.length;
    // Results are taken in the order they finish, from a queue: racing every pending call on each
    // turn would cost O(n²) for a message of thousands of calls.
    const finished: [number, ToolOutcome][] = [];
    let wake: (() => void) | undefined;
    batch.forEach((call, i) => {
      void runToolCall(call, ctx)
        .catch((error: unknown): ToolOutcome => ({
          content: toWire(error).message,
          isError: true,
          durationMs: 0,
        }))
        .then((o) => {
          finished.push([i, o]);
          wake?.();
        });
    });
    for (let taken = 0; taken < batch.length; taken++) {
      if (taken === finished.length) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      const [i, outcome] = finished[taken] as [number, ToolOutcome];
      outcomes[base + i] = outcome;
      const call = batch[i] as PendingCall;
      yield ctx.event({
        type: 'tool-result',
        toolUseId: call.id,
        name: call.name,
        isError: outcome.isError,
        content: preview(outcome.content),
        durationMs: outcome.durationMs,
      });
    }
  }
  return calls.map((call, i) => {
    const o = outcomes[i] as ToolOutcome;
    const block: Block = { type: 'tool_result', tool_use_id: call.id, content: resultContent(o) };
    if (o.isError) block['is_error'] = true;
    return block;
  });
}

/** Groups consecutive safe calls; every other call is a batch of its own. */
function batches(calls: readonly PendingCall[], ctx: ToolRunContext): PendingCall[][] {
  const out: PendingCall[][] = [];
  let group: PendingCall[] = [];
  for (const call of calls) {
    if (call.refusal !== undefined || ctx.isConcurrencySafe(call.name)) {
      group.push(call);
      continue;
    }
    if (group.length > 0) out.push(group);
    group = [];
    out.push([call]);
  }
  if (group.length > 0) out.push(group);
  return out;
}

/** A tool_result's content: the text alone, or the text followed by image blocks. */
function resultContent(o: ToolOutcome): string | Block[] {
  if (!o.images) return o.content;
  return [
    ...(o.content === '' ? [] : [{ type: 'text', text: o.content }]),
    ...o.images.map((image) => ({
      type: 'image',
      source: { type: 'base64', media_type: image.mediaType, data: image.data },
    })),
  ];
}

function preview(text: string): string {
  return text.length <= PREVIEW_CHARS
    ? text
    : `${text.slice(0, PREVIEW_CHARS)}… [${text.length - PREVIEW_CHARS} more chars]`;
}
