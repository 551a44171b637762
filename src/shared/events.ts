// The AgentEvent union: what a run reports as it goes (to the transcript, the UI and library callers).
// Names follow `<noun>-<action>`. Every event carries agentId, parentId, depth and a timestamp.
import * as z from 'zod';
import { TaskOutput, Usage } from './task.js';
import { TodoItem } from './tools.js';

const base = {
  agentId: z.string(),
  parentId: z.string().optional(),
  depth: z.number().int().min(0),
  at: z.number(),
};

/** A message in the Messages API shape, as kept in transcripts for resume. */
export const ConversationMessage = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
});
/** A conversation message. */
export type ConversationMessage = z.infer<typeof ConversationMessage>;

/** Every event a run can emit. */
export const AgentEvent = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('agent-start'),
    agentType: z.string(),
    model: z.string(),
    description: z.string(),
    prompt: z.string(),
    /** Started with `run_in_background`: its parent does not wait for it. */
    background: z.boolean().optional(),
  }),
  z.object({ ...base, type: z.literal('text-delta'), text: z.string() }),
  z.object({
    ...base,
    type: z.literal('tool-call'),
    toolUseId: z.string(),
    name: z.string(),
    input: z.unknown(),
  }),
  z.object({
    ...base,
    type: z.literal('tool-result'),
    toolUseId: z.string(),
    name: z.string(),
    isError: z.boolean(),
    /** A preview of the result (capped); the full text is in the message-append event. */
    content: z.string(),
    durationMs: z.number(),
  }),
  z.object({
    ...base,
    type: z.literal('approval-request'),
    requestId: z.string(),
    capability: z.string(),
    summary: z.string(),
    /** The policy's reason for asking: the mode or rule that made it an ask. */
    reason: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('approval-result'),
    requestId: z.string(),
    decision: z.enum(['allow', 'deny']),
    reason: z.string(),
    /** Who answered: `user`, `session` (an "always" rule), `non-interactive`, `cancelled`, ... */
    decidedBy: z.string().optional(),
    /** How long the request waited for its answer (not counted against the run's timeout). */
    waitedMs: z.number().optional(),
  }),
  /**
   * The host refused a capability call (the policy, a rule, a protected or sensitive path, or an
   * approval denied): the effect did not happen and the model was told so. Only the host emits it.
   */
  z.object({
    ...base,
    type: z.literal('effect-refused'),
    capability: z.string(),
    summary: z.string(),
    code: z.string(),
    reason: z.string(),
    /** Allow rules that would let the call through, when the policy can name them. */
    allow: z.array(z.string()).optional(),
  }),
  z.object({ ...base, type: z.literal('message-append'), message: ConversationMessage }),
  z.object({ ...base, type: z.literal('turn-end'), turn: z.number().int(), stopReason: z.string() }),
  /** Cumulative usage of this run so far. */
  z.object({ ...base, type: z.literal('usage'), usage: Usage }),
  z.object({ ...base, type: z.literal('todo-update'), todos: z.array(TodoItem) }),
  z.object({ ...base, type: z.literal('notice'), level: z.enum(['info', 'warn']), message: z.string() }),
  /** One recorded model exchange (only with --record), for the host to write a cassette. */
  z.object({ ...base, type: z.literal('model-exchange'), exchange: z.unknown() }),
  z.object({ ...base, type: z.literal('agent-end'), output: TaskOutput }),
]);
/** An event of a run. */
export type AgentEvent = z.infer<typeof AgentEvent>;
/** The `type` names of events. */
type AgentEventType = AgentEvent['type'];
/** The event of one type. */
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/**
 * The same check as `AgentEvent.safeParse` for the most frequent event, a text delta, without
 * zod (a streamed reply sends one per few tokens): the event with `stamp` in place of its own
 * identity fields, or undefined when `item` is not a valid text delta.
 */
export function parseTextDelta(
  item: unknown,
  stamp: { agentId: string; depth: number; parentId?: string },
): AgentEventOf<'text-delta'> | undefined {
  if (item === null || typeof item !== 'object') return undefined;
  const { type, text, at } = item as { type?: unknown; text?: unknown; at?: unknown };
  if (type !== 'text-delta' || typeof text !== 'string' || typeof at !== 'number' || !Number.isFinite(at))
    return undefined;
  return {
    agentId: stamp.agentId,
    ...(stamp.parentId !== undefined ? { parentId: stamp.parentId } : {}),
    depth: stamp.depth,
    at,
    type,
    text,
  };
}
