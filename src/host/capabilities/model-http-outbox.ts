// What the host tells a worker about its model requests, batched: everything one turn of the event
// loop has to say goes out in one message after the turn, so a reply that arrives in one read
// (head, body and end) wakes the worker once, not three times, and consecutive body chunks of a
// request are joined into one.
import type { Endpoint } from '../../shared/endpoint.js';
import type { ModelWireIn } from '../../shared/model-wire.js';
import { joinChunks } from './model-http-wire.js';

/** A channel's outgoing queue. */
export interface ModelOutbox {
  /** Queues one message; dropped once closed. */
  send(message: ModelWireIn): void;
  /** Stops sending: what is queued, and anything sent later, is dropped. */
  close(): void;
}

/** The outbox of `endpoint`. */
export function modelOutbox(endpoint: Endpoint): ModelOutbox {
  let closed = false;
  let queued: ModelWireIn[] = [];
  const post = () => {
    const batch = queued;
    queued = [];
    if (closed || batch.length === 0) return;
    const messages = joinChunks(batch);
    endpoint.postMessage(messages.length === 1 ? messages[0] : messages);
  };
  return {
    send(message) {
      if (closed) return;
      if (queued.push(message) === 1) setImmediate(post);
    },
    close() {
      closed = true;
    },
  };
}
