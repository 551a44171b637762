// Holds one model reply to the run's caps on what it may stream: characters of text (thinking and
// citations included) and characters of tool-call input. A reply past either cap ends the turn
// with `too_large` (reason `reply_too_large`); what streamed before it stays the partial result.
import { CadreError } from '../../shared/errors.js';
import type { ReplyCaps } from '../../shared/run-spec.js';

/** The error a reply over its cap ends with. */
function replyTooLarge(kind: 'text' | 'tool input', cap: number): CadreError {
  const key = kind === 'text' ? 'maxReplyChars' : 'maxToolInputChars';
  return new CadreError(
    'too_large',
    `the model's reply passed ${cap} characters of ${kind} (${key}); the stream was stopped and the text so far kept`,
    { reason: 'reply_too_large', cap, key },
  );
}

/** Counts what one reply has streamed; `add*` throws `replyTooLarge` once a cap is passed. */
export class ReplyCounter {
  private text = 0;
  private toolInput = 0;

  constructor(private readonly caps: ReplyCaps | undefined) {}

  /** Counts `chars` more characters of text; throws past the cap. */
  addText(chars: number): void {
    this.text += chars;
    if (this.caps !== undefined && this.text > this.caps.maxReplyChars)
      throw replyTooLarge('text', this.caps.maxReplyChars);
  }

  /** Counts `chars` more characters of tool input; throws past the cap. */
  addToolInput(chars: number): void {
    this.toolInput += chars;
    if (this.caps !== undefined && this.toolInput > this.caps.maxToolInputChars)
      throw replyTooLarge('tool input', this.caps.maxToolInputChars);
  }
}
