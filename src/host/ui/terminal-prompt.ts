// The approval prompt of `cadre run` and `cadre explore` on a TTY: the chat's queue and lines,
// drawn in a live region on stderr, answered with single keys read in raw mode. Raw mode is on only
// while a prompt is shown; Ctrl-C in it is passed on as SIGINT, so it still cancels the run.
import type { ApprovalBroker } from '../approvals/broker.js';
import { ApprovalQueue, type ApprovalKey } from './approval-queue.js';
import { approvalLines } from './approval-view.js';
import type { LiveRegion } from './live-region.js';

/** The input side of a terminal: process.stdin, or a test's. */
export interface KeySource {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: 'data', listener: (data: Buffer | string) => void): unknown;
  off(event: 'data', listener: (data: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** Maps raw key bytes to a prompt key (an arrow key's escape sequence is not Esc). */
function keyOf(data: string): ApprovalKey | 'interrupt' {
  if (data === '\x03') return 'interrupt';
  if (data === '\x1b') return 'escape';
  const key = data.toLowerCase();
  // Anything else (a letter, a pasted chunk) answers nothing but holds the key grace open.
  return key === 'y' || key === 'n' || key === 'a' || key === 'd' ? key : 'other';
}

/** A prompt attached to a region and a key source. */
export interface TerminalPrompt {
  /** The resolver to give the runtime. */
  queue: ApprovalQueue;
  /** Counts waiting requests from the runtime's broker. */
  attach(broker: ApprovalBroker): void;
  /** Draws the extra lines and the prompt again (at once when `urgent`). */
  redraw(urgent?: boolean): void;
  /** Leaves raw mode and stops listening. */
  close(): void;
}

/** Builds the prompt; `extraLines` are drawn above it (the tree of `cadre explore`). */
export function terminalPrompt(
  input: KeySource,
  region: LiveRegion,
  options: { extraLines?: () => ReturnType<typeof approvalLines>; onInterrupt?: () => void } = {},
): TerminalPrompt {
  const queue = new ApprovalQueue();
  let listening = false;
  const onData = (data: Buffer | string) => {
    const key = keyOf(data.toString());
    if (key === 'interrupt') return options.onInterrupt?.();
    queue.press(key);
  };
  const listen = (on: boolean) => {
    if (on === listening) return;
    listening = on;
    if (on) {
      input.setRawMode?.(true);
      input.on('data', onData);
      input.resume();
    } else {
      input.off('data', onData);
      input.setRawMode?.(false);
      // A paused stdin lets the process exit when the run is over.
      input.pause();
    }
  };
  const redraw = (urgent = true) => {
    const view = queue.view();
    listen(view.head !== undefined);
    const prompt = approvalLines(view, region.width, Math.max(3, region.height - 14));
    region.set([...(options.extraLines?.() ?? []), ...prompt], urgent);
  };
  const off = queue.subscribe(() => redraw(true));
  return {
    queue,
    attach: (broker) => queue.attach(broker),
    redraw,
    close() {
      off();
      queue.close();
      listen(false);
    },
  };
}
