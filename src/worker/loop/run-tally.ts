// What a run has used and said so far, and the WorkerRunResult that follows from it: usage, turns,
// tool calls, and the answer, which a reply cut off at max_tokens (or paused) continues next turn.
import type { WireError } from '../../shared/errors.js';
import type { WorkerRunResult } from '../../shared/run-spec.js';
import { emptyUsage, type Usage } from '../../shared/usage.js';

/** The running totals of one run and the text of its answer. */
export class RunTally {
  usage: Usage = emptyUsage();
  turns = 0;
  toolCalls = 0;
  /** The next reply continues the current answer (the last one was cut off or paused). */
  continuing = false;
  /** The text of the latest answer, across continuations. */
  private answer = '';
  /** The latest non-empty answer, kept when a later reply has no text. */
  private lastText = '';

  /** Takes a finished reply's text: it continues the answer or starts a new one. */
  addText(text: string): void {
    this.answer = this.continuing ? this.answer + text : text;
    if (this.answer.trim() !== '') this.lastText = this.answer;
    this.continuing = false;
  }

  /**
   * The run's result. A failed turn's streamed `partial` text is the result when there is any
   * (after the answer it continues); otherwise the answer, or the last non-empty one.
   */
  result(status: WorkerRunResult['status'], error?: WireError, partial = ''): WorkerRunResult {
    const text =
      status === 'failed' && partial.trim() !== ''
        ? this.continuing
          ? this.answer + partial
          : partial
        : this.answer.trim() !== ''
          ? this.answer
          : this.lastText;
    const out: WorkerRunResult = {
      status,
      result: text,
      usage: this.usage,
      turns: this.turns,
      toolCalls: this.toolCalls,
    };
    if (error !== undefined) out.error = error;
    return out;
  }
}
