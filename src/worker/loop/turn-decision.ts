// What follows a finished turn: the run ends (completed, failed or out of turns, with the calls it
// will not run answered unrun), or it goes on, running the calls and continuing a cut-off reply.
import type { WireError } from '../../shared/errors.js';
import type { WorkerRunResult } from '../../shared/run-spec.js';

/** What the loop knows of a finished turn. */
export interface FinishedTurn {
  /** This was the grace turn: the last one, without tools. */
  grace: boolean;
  stopReason: string;
  /** The reply's text. */
  text: string;
  /** How many tool calls the reply made. */
  calls: number;
  /** Turns taken so far, this one included. */
  turns: number;
  maxTurns: number;
}

/** The run ends; `unrun`, when set, answers every call of the reply without running it. */
export interface EndRun {
  kind: 'end';
  status: WorkerRunResult['status'];
  error?: WireError;
  unrun?: string;
}

/** The run goes on: the calls run and the next turn follows. */
export interface NextTurn {
  kind: 'next';
  /** The next reply continues this one (it was paused, or cut off at max_tokens). */
  continuing: boolean;
  /** The model is asked to continue a reply cut off at max_tokens. */
  askToContinue: boolean;
}

/** Decides what follows `turn`. */
export function decideAfterTurn(turn: FinishedTurn): EndRun | NextTurn {
  if (turn.grace) {
    // A model that calls tools anyway gets them answered unrun, so the transcript stays resumable.
    const unrun = 'not run: this was the final report turn, tools were no longer available.';
    return { kind: 'end', status: 'completed', ...(turn.calls > 0 ? { unrun } : {}) };
  }
  if (turn.stopReason === 'refusal') {
    const said = turn.text ? `: ${turn.text.slice(0, 500)}` : '';
    const message = `the model refused to continue (stop_reason refusal)${said}`;
    return {
      kind: 'end',
      status: 'failed',
      error: { code: 'model_refusal', message, details: { reason: 'refusal' } },
    };
  }
  if (turn.stopReason === 'model_context_window_exceeded') {
    const message = "the conversation no longer fits the model's context window";
    return { kind: 'end', status: 'failed', error: { code: 'too_large', message } };
  }
  // pause_turn: the assistant message goes back as it is and the model picks up its own turn.
  const resend = turn.stopReason === 'pause_turn';
  const cutOff = turn.stopReason === 'max_tokens';
  if (turn.calls === 0 && !resend && !cutOff) return { kind: 'end', status: 'completed' };
  if (turn.turns >= turn.maxTurns) {
    const message = `the run reached its limit of ${turn.maxTurns} turns before the model finished`;
    const end: EndRun = { kind: 'end', status: 'max_turns', error: { code: 'max_turns', message } };
    if (turn.calls > 0)
      end.unrun = `not run: the run reached its limit of ${turn.maxTurns} turns (max_turns).`;
    return end;
  }
  return { kind: 'next', continuing: resend || cutOff, askToContinue: cutOff };
}
