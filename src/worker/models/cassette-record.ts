// Builds the cassette record of one exchange (cassette.ts has the format). Apart from the format's
// schemas so that recording, which every recording run does, builds none of them.
import type { WireError } from '../../shared/errors.js';
import type { CassetteExchange, CassetteRequest } from './cassette.js';
import type { ModelRequest, ModelStreamEvent } from './model-client.js';

/** The cassette format version this code writes and reads. */
export const CASSETTE_VERSION = 1;

/** Builds the cassette record of one exchange. */
export function toCassetteExchange(
  request: ModelRequest,
  events: ModelStreamEvent[],
  error?: WireError,
): CassetteExchange {
  const recorded: CassetteRequest = {
    model: request.model,
    system: request.system,
    messages: [...request.messages],
    tools: request.tools.map((t) => t.name),
    maxTokens: request.maxTokens,
  };
  if (request.toolChoice !== undefined) recorded.toolChoice = request.toolChoice;
  const exchange: CassetteExchange = { v: CASSETTE_VERSION, request: recorded, events: [...events] };
  if (error !== undefined) exchange.error = error;
  return exchange;
}
