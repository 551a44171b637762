// The normalized events every model client emits, whatever the wire format behind it. One schema
// serves the live clients, the agent loop and cassettes (which are parsed back with it).
import * as z from 'zod';
import { Usage } from '../../shared/usage.js';

/** An assistant content block in the Messages API shape (text, tool_use, thinking, ...). */
export const AssistantBlock = z.looseObject({ type: z.string() });
/** An assistant content block. */
export type AssistantBlock = z.infer<typeof AssistantBlock>;

/** One normalized model stream event. */
export const ModelStreamEvent = z.discriminatedUnion('type', [
  /** A piece of assistant text, as it streams. */
  z.object({ type: z.literal('text-delta'), text: z.string() }),
  /**
   * A complete tool call, emitted once its input has fully arrived. `inputError` says the input
   * was not a JSON object (typically cut off at max_tokens): the call must not run.
   */
  z.object({
    type: z.literal('tool-use'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    inputError: z.string().optional(),
  }),
  /** Usage of the current message so far (cumulative within this message, not the run). */
  z.object({ type: z.literal('usage'), usage: Usage, estimated: z.boolean().optional() }),
  /** The end of the message: its final content blocks and why it stopped. */
  z.object({
    type: z.literal('message-end'),
    content: z.array(AssistantBlock),
    stopReason: z.string(),
    stopSequence: z.string().optional(),
  }),
]);
/** One normalized model stream event. */
export type ModelStreamEvent = z.infer<typeof ModelStreamEvent>;
/** The event of one type. */
export type ModelStreamEventOf<T extends ModelStreamEvent['type']> = Extract<ModelStreamEvent, { type: T }>;
