// What follows a finished turn, for every stop reason, the grace turn and the turn limit.
import { describe, expect, it } from 'vitest';
import { decideAfterTurn, type FinishedTurn } from '../../../src/worker/loop/turn-decision.js';

const turn = (over: Partial<FinishedTurn> = {}): FinishedTurn => ({
  grace: false,
  stopReason: 'end_turn',
  text: 'answer',
  calls: 0,
  turns: 1,
  maxTurns: 10,
  ...over,
});

describe('decideAfterTurn', () => {
  it.each([
    ['a reply without calls completes', turn(), { kind: 'end', status: 'completed' }],
    [
      'calls go on to the next turn',
      turn({ stopReason: 'tool_use', calls: 2 }),
      { kind: 'next', continuing: false, askToContinue: false },
    ],
    [
      'a paused turn is resent as it is',
      turn({ stopReason: 'pause_turn' }),
      { kind: 'next', continuing: true, askToContinue: false },
    ],
    [
      'a reply cut off at max_tokens is asked to continue',
      turn({ stopReason: 'max_tokens', calls: 1 }),
      { kind: 'next', continuing: true, askToContinue: true },
    ],
    [
      'the grace turn completes',
      turn({ grace: true, stopReason: 'max_tokens' }),
      { kind: 'end', status: 'completed' },
    ],
  ])('%s', (_, input, expected) => {
    expect(decideAfterTurn(input)).toEqual(expected);
  });

  it('answers the calls of the grace turn unrun', () => {
    expect(decideAfterTurn(turn({ grace: true, stopReason: 'tool_use', calls: 1 }))).toEqual({
      kind: 'end',
      status: 'completed',
      unrun: 'not run: this was the final report turn, tools were no longer available.',
    });
  });

  it('fails on a refusal, quoting at most 500 characters of what the model said', () => {
    const decision = decideAfterTurn(turn({ stopReason: 'refusal', text: 'n'.repeat(900), calls: 1 }));
    expect(decision).toMatchObject({
      kind: 'end',
      status: 'failed',
      error: { code: 'model_refusal', details: { reason: 'refusal' } },
    });
    const message = decision.kind === 'end' ? (decision.error?.message ?? '') : '';
    expect(message).toBe(`the model refused to continue (stop_reason refusal): ${'n'.repeat(500)}`);
    const silent = decideAfterTurn(turn({ stopReason: 'refusal', text: '' }));
    expect(silent.kind === 'end' && silent.error?.message).toBe(
      'the model refused to continue (stop_reason refusal)',
    );
  });

  it('fails when the context window is exceeded, even with calls pending', () => {
    expect(decideAfterTurn(turn({ stopReason: 'model_context_window_exceeded', calls: 3 }))).toMatchObject({
      kind: 'end',
      status: 'failed',
      error: { code: 'too_large' },
    });
  });

  it('stops at max_turns only when the model wanted another turn, answering its calls unrun', () => {
    expect(decideAfterTurn(turn({ turns: 3, maxTurns: 3 }))).toEqual({ kind: 'end', status: 'completed' });
    expect(decideAfterTurn(turn({ stopReason: 'tool_use', calls: 2, turns: 3, maxTurns: 3 }))).toEqual({
      kind: 'end',
      status: 'max_turns',
      error: { code: 'max_turns', message: 'the run reached its limit of 3 turns before the model finished' },
      unrun: 'not run: the run reached its limit of 3 turns (max_turns).',
    });
    const cutOff = decideAfterTurn(turn({ stopReason: 'max_tokens', turns: 3, maxTurns: 3 }));
    expect(cutOff).toMatchObject({ kind: 'end', status: 'max_turns' });
    expect(cutOff).not.toHaveProperty('unrun');
  });
});
