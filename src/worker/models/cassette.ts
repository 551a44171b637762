// The cassette format: JSONL, one line per model exchange (the request and the normalized reply
// events, plus the error if the exchange failed). The host writes it; the replay client reads it.
// Its schemas (about 200 zod objects with the events they include) are built only where a cassette
// is read: a worker thread imports this module on its first replayed request, not when it loads.
import * as z from 'zod';
import { ConversationMessage } from '../../shared/events.js';
import { WireError } from '../../shared/errors.js';
import { formatZodError } from '../../shared/zod-format.js';
import { ModelStreamEvent } from './stream-event.js';
import { CASSETTE_VERSION } from './cassette-record.js';

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
export type CassetteRequest = z.infer<typeof CassetteRequest>;

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
