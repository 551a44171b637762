// The run's totals and the answer text its result carries: continued replies are joined, a later
// empty reply keeps the last answer, a failed turn's partial text follows what it continues.
import { describe, expect, it } from 'vitest';
import { RunTally } from '../../../src/worker/loop/run-tally.js';

describe('RunTally', () => {
  it('reports the totals and the latest answer', () => {
    const tally = new RunTally();
    tally.turns = 2;
    tally.toolCalls = 3;
    tally.addText('first');
    tally.addText('second');
    expect(tally.result('completed')).toEqual({
      status: 'completed',
      result: 'second',
      usage: tally.usage,
      turns: 2,
      toolCalls: 3,
    });
  });

  it('joins a continued reply to the answer it continues, once', () => {
    const tally = new RunTally();
    tally.addText('The answer is');
    tally.continuing = true;
    tally.addText(' forty-two.');
    expect(tally.result('completed').result).toBe('The answer is forty-two.');
    expect(tally.continuing).toBe(false);
    tally.addText('New answer.');
    expect(tally.result('completed').result).toBe('New answer.');
  });

  it('keeps the last non-empty answer when a later reply says nothing', () => {
    const tally = new RunTally();
    tally.addText('Found it.');
    tally.addText('  ');
    expect(tally.result('completed').result).toBe('Found it.');
  });

  it("gives a failed turn's partial text, after the answer it was continuing", () => {
    const tally = new RunTally();
    tally.addText('Part one.');
    const error = { code: 'model_error' as const, message: 'stream broke' };
    expect(tally.result('failed', error, 'Half of')).toMatchObject({ result: 'Half of', error });
    tally.continuing = true;
    expect(tally.result('failed', error, ' part two').result).toBe('Part one. part two');
    expect(tally.result('failed', error, '   ').result).toBe('Part one.');
    expect(tally.result('max_turns', undefined, 'only a failure keeps partial text').result).toBe(
      'Part one.',
    );
  });
});
