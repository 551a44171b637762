// The host end of a run's model channel: the worker's SDK hands each HTTP request to the host,
// which asks the one policy function (the run may reach its own model endpoint only), puts the
// real credentials in place of the worker's placeholder, makes the request over keep-alive
// connections shared by every run in the process, streams the response back, and audits it
// (model-http-relay.ts; the wire's pure pieces in model-http-wire.ts, batching in
// model-http-outbox.ts). The worker thus holds no HTTP stack and no secret, and a new subagent
// reuses a warm connection.
import type { Endpoint } from '../../shared/endpoint.js';
import type { ModelWireOut } from '../../shared/model-wire.js';
import { modelOutbox } from './model-http-outbox.js';
import { relayRequest, type ModelChannelContext, type ModelExchange } from './model-http-relay.js';

export type { ModelChannelContext, ModelStreamObserver } from './model-http-relay.js';

/** A served model channel. */
export interface ModelChannel {
  /** Requests still open. */
  active(): number;
  /** Ends every open request and stops answering. */
  close(): void;
}

/** Answers the model requests a run's worker sends on `endpoint`. */
export function serveModelChannel(endpoint: Endpoint, ctx: ModelChannelContext): ModelChannel {
  const open = new Map<number, ModelExchange>();
  const outbox = modelOutbox(endpoint);
  const scope = { ctx, open, send: outbox.send };
  let closed = false;

  const onMessage = (event: { data: unknown }) => {
    const message = event.data as ModelWireOut | null;
    if (closed || message === null || typeof message !== 'object' || typeof message.id !== 'number') return;
    if (message.t === 'request') {
      if (!open.has(message.id)) relayRequest(scope, message);
    } else if (message.t === 'ack') {
      if (typeof message.bytes === 'number' && Number.isFinite(message.bytes))
        open.get(message.id)?.ack?.(message.bytes);
    } else if (message.t === 'abort') {
      const request = open.get(message.id);
      request?.end(false, 'cancelled', 'the model client aborted the request');
      request?.req.destroy();
    }
  };
  endpoint.addEventListener('message', onMessage);
  endpoint.start?.();

  return {
    active: () => open.size,
    close() {
      if (closed) return;
      closed = true;
      outbox.close();
      endpoint.removeEventListener('message', onMessage);
      for (const request of [...open.values()]) {
        request.end(false, 'cancelled', 'the run ended before the response did');
        request.req.destroy();
      }
    },
  };
}
