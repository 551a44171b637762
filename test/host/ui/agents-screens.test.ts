// The /agents list's scrolling: the selected row stays in view, in the middle where the list allows.
import { describe, expect, it } from 'vitest';
import { listWindowStart } from '../../../src/host/ui/chat/agents-screens.js';

describe('listWindowStart', () => {
  it('shows a list that fits from its top, wherever the selection is', () => {
    expect(listWindowStart(0, 5, 10)).toBe(0);
    expect(listWindowStart(4, 5, 10)).toBe(0);
  });

  it('keeps the selection in the middle of a longer list', () => {
    expect(listWindowStart(20, 100, 10)).toBe(15);
  });

  it('stops at either end instead of showing empty rows', () => {
    expect(listWindowStart(2, 100, 10)).toBe(0);
    expect(listWindowStart(99, 100, 10)).toBe(90);
  });

  it('always has the selected row in the window', () => {
    for (let count = 1; count < 40; count++)
      for (let index = 0; index < count; index++) {
        const start = listWindowStart(index, count, 7);
        expect(index).toBeGreaterThanOrEqual(start);
        expect(index).toBeLessThan(start + 7);
      }
  });
});
