// Stamping the loop's events with the run's identity and the time: the loop and its steps build
// event bodies, and one function turns a body into the AgentEvent the host receives.
import type { AgentEvent } from '../../shared/events.js';
import type { WorkerRunSpec } from '../../shared/run-spec.js';

/** An event as the loop builds it, before it carries the run's identity and time. */
type EventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, 'agentId' | 'parentId' | 'depth' | 'at'>
    : never
  : never;

/** Turns a body into an AgentEvent of `spec`'s agent, timed by `now`. */
export type StampEvent = (body: EventBody) => AgentEvent;

/** The event stamp of one run. */
export function eventStamp(
  spec: Pick<WorkerRunSpec, 'agentId' | 'parentId' | 'depth'>,
  now: () => number,
): StampEvent {
  return (body) =>
    ({
      ...body,
      agentId: spec.agentId,
      ...(spec.parentId === undefined ? {} : { parentId: spec.parentId }),
      depth: spec.depth,
      at: now(),
    }) as AgentEvent;
}
