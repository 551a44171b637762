// The one path from a model's tool call to the result it reads back: look the tool up among those
// offered, refuse broken input, run it, turn a thrown fault into an error result, and cap the text
// once. Scheduling (which calls run together) is `run-tools.ts`'s job; the tools themselves are
// whatever table the run was given.
import type { ToolImage } from '../../shared/capabilities.js';
import { capText } from '../../shared/cap-text.js';
import { toWire } from '../../shared/errors.js';
import type { Block } from './conversation.js';
import type { ToolUse } from './model-turn.js';

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

/** What answering one call needs: the run's tool table, its cancel signal, a clock, the cap. */
export interface ToolCallContext {
  /** Runs a tool by name; may throw on a fault (the runner turns it into a result). */
  run(name: string, input: unknown, signal?: AbortSignal): Promise<ToolRunResult>;
  signal: AbortSignal;
  now(): number;
  /** Largest result text kept in the conversation. */
  maxResultChars: number;
}

/** A call's result as the conversation keeps it, and how long it took. */
export interface ToolOutcome extends ToolRunResult {
  durationMs: number;
}

/** A tool_use block as a call to run, or to refuse when it names a tool not offered or its input is broken. */
export function toPendingCall(
  block: Block,
  use: ToolUse | undefined,
  offered: ReadonlySet<string>,
): PendingCall {
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

/** Answers one call. Never throws: refusals, a stopping run and faults all become error results. */
export async function runToolCall(call: PendingCall, ctx: ToolCallContext): Promise<ToolOutcome> {
  const started = ctx.now();
  if (call.refusal !== undefined) return { content: call.refusal, isError: true, durationMs: 0 };
  if (ctx.signal.aborted) {
    const content = `cancelled: ${call.name} was not run because the run is stopping.`;
    return { content, isError: true, durationMs: 0 };
  }
  let result: ToolRunResult;
  try {
    result = await ctx.run(call.name, call.input, ctx.signal);
  } catch (error) {
    const wire = toWire(error);
    result = { content: `${wire.code}: ${call.name} failed: ${wire.message}`, isError: true };
  }
  // A tool table from outside the worker's own tools may hand back a non-string.
  const content = typeof result.content === 'string' ? result.content : String(result.content);
  const outcome: ToolOutcome = {
    content: capText(content, ctx.maxResultChars),
    isError: result.isError === true,
    durationMs: Math.max(0, ctx.now() - started),
  };
  if (Array.isArray(result.images) && result.images.length > 0) outcome.images = result.images;
  return outcome;
}

/** A result block for a call answered without running it. */
export function refusedBlock(call: PendingCall, text: string): Block {
  return { type: 'tool_result', tool_use_id: call.id, content: text, is_error: true };
}
