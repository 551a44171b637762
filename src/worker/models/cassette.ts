// The cassette format: JSONL, one line per model exchange (the request and the normalized reply
// events, plus the error if the exchange failed). The host writes it; the replay client reads it.
import * as z from 'zod';
import { ConversationMessage } from '../../shared/events.js';
import { WireError } from '../../shared/errors.js';
import { formatZodError } from '../../shared/zod-format.js';
import { ModelStreamEvent } from './stream-event.js';
import type { ModelRequest } from './model-client.js';

/** The cassette format version this code writes and reads. */
const CASSETTE_VERSION = 1;

/** A recorded request. Tools are kept by name only: their schemas are static and large. */
const CassetteRequest = z.object({
  model: z.string(),
  system: z.string(),
  messages: z.array(ConversationMessage),
  tools: z.array(z.string()),
  maxTokens: z.number().int().positive(),
  toolChoice: z.enum(['auto', 'none']).optional(),
});
/** A recorded request. */
type CassetteRequest = z.infer<typeof CassetteRequest>;

/** One line of a cassette. */
export const CassetteExchange = z.object({
  v: z.literal(CASSETTE_VERSION),
  request: CassetteRequest,
  events: z.array(ModelStreamEvent),
  /** Set when the exchange failed: the replay throws it after the recorded events. */
  error: WireError.optional(),
});
/** One line of a cassette. */
export type CassetteExchange = z.infer<typeof CassetteExchange>;

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

/** One exchange as a cassette line (JSON plus a newline), ready to append to the file. */
export function formatCassetteLine(exchange: CassetteExchange): string {
  return `${JSON.stringify(exchange)}\n`;
}

/** Parses a cassette. Every bad line is reported as `where:line: field: message`; good lines are kept. */
export function parseCassette(
  content: string,
  where = 'cassette',
): { exchanges: CassetteExchange[]; errors: string[] } {
  const exchanges: CassetteExchange[] = [];
  const errors: string[] = [];
  content.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const at = `${where}:${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (e) {
      errors.push(`${at}: not valid JSON (${(e as Error).message})`);
      return;
    }
    const parsed = CassetteExchange.safeParse(json);
    if (parsed.success) exchanges.push(parsed.data);
    else errors.push(...formatZodError(parsed.error, at));
  });
  return { exchanges, errors };
}
