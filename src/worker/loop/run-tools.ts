// Runs one model turn's tool calls: consecutive concurrency-safe calls together, any other call
// alone and in order, so a Read after an Edit sees the edit. Results keep the model's order;
// `tool-result` events go out as each call finishes.
import type { ToolImage } from '../../shared/capabilities.js';
import { toWire } from '../../shared/errors.js';
import type { AgentEvent } from '../../shared/events.js';
import type { Block } from './conversation.js';

/** A tool call to answer: either run it, or answer with `refusal` without running it. */
export interface PendingCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** When set, the call is not run and this text is its error result. */
  refusal?: string;
}

/** What one tool call returns: its text, whether it failed, and any images for the model. */
export interface ToolRunResult {
  content: string;
  isError: boolean;
  images?: ToolImage[];
}

/** What running tools needs from the loop. */
export interface ToolRunContext {
  run(name: string, input: unknown, signal?: AbortSignal): Promise<ToolRunResult>;
  isConcurrencySafe(name: string): boolean;
  signal: AbortSignal;
  now(): number;
  /** Largest result text kept in the conversation. */
  maxResultChars: number;
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

interface Outcome {
  content: string;
  isError: boolean;
  images?: ToolImage[];
  durationMs: number;
}

/** Runs the calls; yields tool-result events; returns the tool_result blocks in call order. */
export async function* runToolCalls(
  calls: readonly PendingCall[],
  ctx: ToolRunContext,
): AsyncGenerator<AgentEvent, Block[]> {
  const outcomes: Outcome[] = [];
  for (const batch of batches(calls, ctx)) {
    const base = outcomes.length;
    // Results are taken in the order they finish, from a queue: racing every pending call on each
    // turn would cost O(n²) for a message of thousands of calls.
    const finished: [number, Outcome][] = [];
    let wake: (() => void) | undefined;
    batch.forEach((call, i) => {
      void runOne(call, ctx)
        .catch((error: unknown): Outcome => ({
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
      const [i, outcome] = finished[taken] as [number, Outcome];
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
    const o = outcomes[i] as Outcome;
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

async function runOne(call: PendingCall, ctx: ToolRunContext): Promise<Outcome> {
  const started = ctx.now();
  if (call.refusal !== undefined) return { content: call.refusal, isError: true, durationMs: 0 };
  if (ctx.signal.aborted)
    return {
      content: `cancelled: ${call.name} was not run because the run is stopping.`,
      isError: true,
      durationMs: 0,
    };
  let result: ToolRunResult;
  try {
    result = await ctx.run(call.name, call.input, ctx.signal);
  } catch (error) {
    const wire = toWire(error);
    result = { content: `${wire.code}: ${call.name} failed: ${wire.message}`, isError: true };
  }
  const content = typeof result.content === 'string' ? result.content : String(result.content);
  const outcome: Outcome = {
    content: cap(content, ctx.maxResultChars),
    isError: result.isError === true,
    durationMs: Math.max(0, ctx.now() - started),
  };
  if (Array.isArray(result.images) && result.images.length > 0) outcome.images = result.images;
  return outcome;
}

/** A tool_result's content: the text alone, or the text followed by image blocks. */
function resultContent(o: Outcome): string | Block[] {
  if (!o.images) return o.content;
  return [
    ...(o.content === '' ? [] : [{ type: 'text', text: o.content }]),
    ...o.images.map((image) => ({
      type: 'image',
      source: { type: 'base64', media_type: image.mediaType, data: image.data },
    })),
  ];
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n... [output truncated: ${text.length - max} more characters not shown of ${text.length}]`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

function preview(text: string): string {
  return text.length <= PREVIEW_CHARS
    ? text
    : `${text.slice(0, PREVIEW_CHARS)}… [${text.length - PREVIEW_CHARS} more chars]`;
}
