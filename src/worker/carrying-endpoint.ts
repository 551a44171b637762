// The worker's side of "one message per call": the capability endpoint with the events gathered
// so far put on each message it sends (EVENTS_FIELD), so a capability call and the tool-call event
// that led to it reach the host as one message, which the host's gateway takes apart.
import { EVENTS_FIELD } from '../shared/capabilities.js';
import type { Endpoint } from '../shared/endpoint.js';
import type { AgentEvent } from '../shared/events.js';

/** `endpoint`, whose sent messages carry `pending()` (the events gathered and not yet sent) when any. */
export function carryingEvents(endpoint: Endpoint, pending: () => AgentEvent[] | undefined): Endpoint {
  const out: Endpoint = {
    postMessage: (message, transfer) => {
      const events = pending();
      // Comlink builds a new message object for every call: adding the field changes nothing else.
      if (events !== undefined && typeof message === 'object' && message !== null)
        (message as Record<string, unknown>)[EVENTS_FIELD] = events;
      endpoint.postMessage(message, transfer);
    },
    addEventListener: (type, listener) => endpoint.addEventListener(type, listener),
    removeEventListener: (type, listener) => endpoint.removeEventListener(type, listener),
  };
  if (endpoint.start) out.start = () => endpoint.start?.();
  return out;
}
