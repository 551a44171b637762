// Wraps any model client so every exchange (request, normalized events, error) is reported for a
// cassette. The wrapper only observes: events pass through unchanged and errors are rethrown.
import { toWire } from '../../shared/errors.js';
import type { CassetteExchange } from './cassette.js';
import { toCassetteExchange } from './cassette-record.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './model-client.js';

/** A client that reports each finished exchange to `onExchange`. */
export function withRecorder(
  client: ModelClient,
  onExchange: (exchange: CassetteExchange) => void,
): ModelClient {
  return {
    kind: client.kind,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
      const events: ModelStreamEvent[] = [];
      try {
        for await (const event of client.stream(request, signal)) {
          events.push(event);
          yield event;
        }
      } catch (error) {
        onExchange(toCassetteExchange(request, events, toWire(error)));
        throw error;
      }
      onExchange(toCassetteExchange(request, events));
    },
  };
}
