// parseTextDelta is the zod-free fast path for text deltas: it must accept and produce exactly
// what AgentEvent.safeParse does for every input it accepts, and reject what it cannot vouch for.
import { describe, expect, it } from 'vitest';
import { AgentEvent, parseTextDelta } from '../../src/shared/events.js';

const stamps = [
  { agentId: 'lead-1', depth: 0 },
  { agentId: 'sub-2', depth: 2, parentId: 'lead-1' },
];
const values: unknown[] = ['', 'text', 0, 1.5, -1, NaN, Infinity, null, undefined, {}, [], true];
const items: unknown[] = [null, undefined, 'text-delta', 42, []];
for (const text of values)
  for (const at of values) {
    items.push({ type: 'text-delta', text, at });
    items.push({ type: 'text-delta', text, at, agentId: 'forged', depth: 9, parentId: 'forged', extra: 1 });
  }
items.push({ type: 'tool-call', text: 'x', at: 1 }, { type: 'TEXT-DELTA', text: 'x', at: 1 });

describe('parseTextDelta', () => {
  it('agrees with the zod schema wherever it accepts, stamping the host identity', () => {
    let accepted = 0;
    for (const stamp of stamps)
      for (const item of items) {
        // What the host hands zod: the worker's fields under the host's identity.
        const forced: Record<string, unknown> =
          item && typeof item === 'object' ? { ...item, ...stamp } : { ...stamp };
        if (!('parentId' in stamp)) delete forced.parentId;
        const slow = AgentEvent.safeParse(forced);
        const fast = parseTextDelta(item, stamp);
        if (fast === undefined) {
          // A refusal falls back to zod, which must not find a text delta there either.
          expect(slow.success && slow.data.type === 'text-delta').toBe(false);
          continue;
        }
        accepted++;
        expect(slow.success).toBe(true);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.data));
      }
    expect(accepted).toBe(2 * 2 * 2 * 3); // two stamps, two shapes, two strings, three finite numbers
  });
});
