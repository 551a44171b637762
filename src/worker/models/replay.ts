// The replay client: plays a recorded cassette back so a run (or a whole tree) can be reproduced
// without a network or a key. A cassette may interleave several agents' exchanges, so each
// request takes the next unplayed exchange of its own conversation (same system prompt and
// first message) at the same point (same message count).
import { CadreError, fromWire } from '../../shared/errors.js';
import type { ModelConfig } from '../../shared/run-spec.js';
import type { CassetteExchange } from './cassette.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './model-client.js';

const conversationKey = (r: Pick<ModelRequest, 'system' | 'messages'>) =>
  JSON.stringify([r.system, r.messages[0] ?? null]);

/** Builds a replay client over `config.cassette` (the cassette's content, read by the host). */
export function createReplayClient(config: Pick<ModelConfig, 'cassette'>): ModelClient {
  // Parsed on the first request: the cassette's schemas are loaded only by a thread that replays.
  let cassette: Promise<{ exchanges: CassetteExchange[]; errors: string[] }> | undefined;
  const played = new Set<CassetteExchange>();
  let served = 0;
  const fail = (message: string) => new CadreError('model_error', message, { reason: 'model_error' });
  return {
    kind: 'replay',
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
      cassette ??= import('./cassette.js').then(({ parseCassette }) => parseCassette(config.cassette ?? ''));
      const { exchanges, errors } = await cassette;
      if (errors.length > 0) throw fail(`the cassette is invalid:\n${errors.join('\n')}`);
      const n = ++served;
      const key = conversationKey(request);
      const mine = exchanges.filter((e) => conversationKey(e.request) === key);
      if (mine.length === 0) {
        throw fail(
          `the cassette (${exchanges.length} recorded exchange(s)) has none for this conversation: no recording starts with this system prompt and first message`,
        );
      }
      const unplayed = mine.filter((e) => !played.has(e));
      if (unplayed.length === 0) {
        throw fail(
          `the cassette has ${mine.length} recorded exchange(s) for this conversation and this run asked for a reply to request ${n}: the run went further than the recording`,
        );
      }
      // The loop is deterministic, so a different message count means the run left the recording.
      const exchange = unplayed.find((e) => e.request.messages.length === request.messages.length);
      if (exchange === undefined) {
        const expected = unplayed[0]?.request.messages.length ?? 0;
        throw fail(
          `the run diverged from the cassette at request ${n}: it sent ${request.messages.length} message(s), the recording has ${expected}`,
        );
      }
      played.add(exchange);
      for (const event of exchange.events) {
        if (signal.aborted) throw new CadreError('cancelled', 'the model call was cancelled');
        yield event;
      }
      if (exchange.error !== undefined) throw fromWire(exchange.error);
    },
  };
}
