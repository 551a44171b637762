// Token usage and the arithmetic on it. Apart from task.ts so that a worker thread, which needs
// these and none of the task schemas, does not build those schemas (about 80 zod objects, a few
// milliseconds and a few hundred KB of every thread) when it loads.
import * as z from 'zod';

/** Token usage, in the Messages API's field names. */
export const Usage = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  cache_read_input_tokens: z.number().int().min(0),
  cache_creation_input_tokens: z.number().int().min(0),
});
/** Token usage. */
export type Usage = z.infer<typeof Usage>;

/** A zero usage record. */
export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}

/** Adds usage `b` into a new record. */
export function addUsage(a: Usage, b: Partial<Usage>): Usage {
  return {
    input_tokens: a.input_tokens + (b.input_tokens ?? 0),
    output_tokens: a.output_tokens + (b.output_tokens ?? 0),
    cache_read_input_tokens: a.cache_read_input_tokens + (b.cache_read_input_tokens ?? 0),
    cache_creation_input_tokens: a.cache_creation_input_tokens + (b.cache_creation_input_tokens ?? 0),
  };
}

/** Tokens counted against budgets: everything the model read or wrote. */
export function totalTokens(u: Usage): number {
  return u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
}

/** What a one-line usage summary reads of a run's output. */
export interface UsageSummary {
  usage: Usage;
  durationMs: number;
  turns: number;
  toolCalls: number;
}

/** A one-line usage summary, as the parent model sees it. */
export function usageLine(o: UsageSummary): string {
  const u = o.usage;
  return `${u.input_tokens} in / ${u.output_tokens} out tokens, ${o.turns} turns, ${o.toolCalls} tool calls, ${(o.durationMs / 1000).toFixed(1)} s`;
}
