import { describe, expect, it } from 'vitest';
import { CadreError } from '../../../src/shared/errors.js';
import { emptyUsage } from '../../../src/shared/task.js';
import {
  cancelKill,
  classifyEnd,
  type RunHappenings,
  type RunTallied,
} from '../../../src/host/pool/run-end.js';

const limits = { timeoutMs: 300_000, idleTimeoutMs: 120_000 };
const tallied: RunTallied = {
  result: 'partial text',
  usage: { ...emptyUsage(), input_tokens: 7, output_tokens: 3 },
  turns: 2,
  toolCalls: 5,
  durationMs: 1234,
};
const workerUsage = { ...emptyUsage(), input_tokens: 70, output_tokens: 30 };
const returned = (value: object): RunHappenings => ({
  kill: undefined,
  outcome: { ok: true, value: { result: 'final', usage: workerUsage, turns: 4, toolCalls: 9, ...value } },
});
const threw = (error: unknown): RunHappenings => ({ kill: undefined, outcome: { ok: false, error } });
const killed = (kill: RunHappenings['kill'], outcome?: RunHappenings['outcome']): RunHappenings => ({
  kill,
  outcome,
});
const exitError = Object.assign(new Error('worker exited with code: 1'), { code: 'ERR_WORKER_EXIT' });
const oomError = Object.assign(new Error('Worker terminated due to reaching memory limit'), {
  code: 'ERR_WORKER_OUT_OF_MEMORY',
});

describe('classifyEnd', () => {
  it.each([
    ['a completed worker', returned({ status: 'completed' }), 'completed', undefined, undefined],
    ['a worker at max_turns', returned({ status: 'max_turns' }), 'max_turns', undefined, undefined],
    [
      'a worker that failed',
      returned({ status: 'failed', error: { code: 'model_error', message: 'overloaded' } }),
      'failed',
      'model_error',
      undefined,
    ],
    [
      'a worker whose model stream went silent',
      returned({ status: 'failed', error: { code: 'timeout', message: 'stream idle' } }),
      'timeout',
      'timeout',
      'idle_timeout',
    ],
    [
      'a worker whose reply was too large',
      returned({
        status: 'failed',
        error: { code: 'invalid_input', message: 'too big', details: { reason: 'reply_too_large' } },
      }),
      'failed',
      'invalid_input',
      'reply_too_large',
    ],
    ['a malformed worker result', returned({ status: 'done' }), 'crashed', 'worker_died', 'worker_error'],
    ['the wall clock', killed({ kind: 'timeout' }), 'timeout', 'timeout', undefined],
    ['the idle watchdog', killed({ kind: 'idle' }), 'timeout', 'timeout', 'idle_timeout'],
    [
      'a cancel by the caller',
      killed({ kind: 'cancel', reason: 'user_cancelled' }),
      'cancelled',
      'cancelled',
      'user_cancelled',
    ],
    [
      "a parent's end",
      killed({ kind: 'cancel', reason: 'parent_cancelled' }),
      'cancelled',
      'cancelled',
      'parent_cancelled',
    ],
    [
      'the budget',
      killed({ kind: 'budget', message: 'run token budget' }),
      'budget_exceeded',
      'budget_exceeded',
      undefined,
    ],
    ['the heap sampler', killed({ kind: 'oom', usedMb: 470 }), 'crashed', 'out_of_memory', 'out_of_memory'],
    [
      'a transcript that would not open',
      killed({ kind: 'fault', error: { code: 'io_error', message: 'cannot open transcript' } }),
      'failed',
      'io_error',
      undefined,
    ],
    ['a worker that exited', threw(exitError), 'crashed', 'worker_died', 'worker_exit'],
    ['a worker that threw', threw(new Error('boom')), 'crashed', 'worker_died', 'worker_error'],
    [
      'a worker whose own error names an exit',
      threw(new Error('git exited with code 1')),
      'crashed',
      'worker_died',
      'worker_error',
    ],
    ['a worker out of memory', threw(oomError), 'crashed', 'out_of_memory', 'out_of_memory'],
    ['a worker that threw a non-error', threw('just a string'), 'crashed', 'worker_died', 'worker_error'],
  ] as const)('%s ends %s', (_what, happened, status, code, reason) => {
    const end = classifyEnd(happened, tallied, limits);
    expect(end.status).toBe(status);
    expect(end.error?.code).toBe(code);
    expect(end.error?.reason).toBe(reason);
  });

  it("keeps the worker's own figures when it returned, and the tally's when it was stopped", () => {
    const done = classifyEnd(returned({ status: 'completed' }), tallied, limits);
    expect(done).toMatchObject({
      result: 'final',
      usage: workerUsage,
      turns: 4,
      toolCalls: 9,
      durationMs: 1234,
    });
    const stopped = classifyEnd(killed({ kind: 'timeout' }), tallied, limits);
    expect(stopped).toMatchObject({ result: 'partial text', usage: tallied.usage, turns: 2, toolCalls: 5 });
  });

  it('lets a kill win over a result that raced it', () => {
    const raced = killed(
      { kind: 'cancel', reason: 'user_cancelled' },
      returned({ status: 'completed' }).outcome,
    );
    expect(classifyEnd(raced, tallied, limits)).toMatchObject({
      status: 'cancelled',
      result: 'partial text',
    });
  });

  it('names the limit that was passed, in seconds', () => {
    expect(classifyEnd(killed({ kind: 'timeout' }), tallied, limits).error?.message).toMatch(
      /timeout of 300 s/,
    );
    expect(classifyEnd(killed({ kind: 'idle' }), tallied, limits).error?.message).toMatch(/for 120 s/);
    expect(classifyEnd(killed({ kind: 'oom', usedMb: 470 }), tallied, limits).error?.message).toMatch(
      /470 MB/,
    );
  });

  it('says what was malformed in a worker result', () => {
    const end = classifyEnd(returned({ status: 'completed', turns: -1 }), tallied, limits);
    expect(end.error?.message).toMatch(/malformed result: .*turns/);
  });

  it('calls a run that ended with neither a kill nor an outcome a crash, not a success', () => {
    expect(classifyEnd({ kill: undefined, outcome: undefined }, tallied, limits).status).toBe('crashed');
  });
});

describe('cancelKill', () => {
  it('tells a parent ending from a caller cancelling, and a host fault from both', () => {
    const parent = new CadreError('cancelled', 'x', { endReason: 'parent_cancelled' });
    const user = new CadreError('cancelled', 'x', { endReason: 'user_cancelled' });
    expect(cancelKill(parent)).toEqual({ kind: 'cancel', reason: 'parent_cancelled' });
    expect(cancelKill(user)).toEqual({ kind: 'cancel', reason: 'user_cancelled' });
    expect(cancelKill(undefined)).toEqual({ kind: 'cancel', reason: 'user_cancelled' });
    expect(cancelKill(new Error('whatever'))).toEqual({ kind: 'cancel', reason: 'user_cancelled' });
    const fault = cancelKill(new CadreError('io_error', 'cannot open transcript t.jsonl'));
    expect(fault).toMatchObject({
      kind: 'fault',
      error: { code: 'io_error', message: 'cannot open transcript t.jsonl' },
    });
  });
});
