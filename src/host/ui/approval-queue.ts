// The person's side of the approval queue: a Resolver that shows one request at a time (the head
// of the broker's queue, with its place in it) and turns keys into answers. Kept apart from Ink so
// the chat, `cadre run` on a TTY and the tests drive the very same logic.
//
// Keys are ignored for a short grace after the head changes, and every key pressed during it, or
// any key that is not an answer, starts the grace again: a keystroke meant for one prompt, or a
// sentence being typed into the composer as the prompt appears, never answers it. Keys count once
// the person has stopped typing for the grace.
import type { ApprovalRequest, Resolver, ResolverAnswer } from '../approvals/types.js';

/** Milliseconds after the head changes during which keys are ignored. */
export const KEY_GRACE_MS = 300;

/** The keys a prompt takes; `other` is any other key (it only starts the grace again). */
export type ApprovalKey = 'y' | 'n' | 'escape' | 'a' | 'd' | 'other';

/** What a key press did. */
export type KeyOutcome = 'ignored' | 'answered' | 'toggled' | 'unavailable' | 'none';

/** What a prompt renders. */
export interface ApprovalView {
  head: ApprovalRequest | undefined;
  /** Requests waiting, the head included. */
  total: number;
  /** Whether `d` has been pressed for this request (the full input is shown, or paged through). */
  detail: boolean;
  /**
   * How many times `d` was pressed: the full input is shown a page at a time, and `d` steps
   * through the pages and then back to the preview (approval-view.ts counts the pages).
   */
  page: number;
  /** True while keys are still ignored after the head changed. */
  settling: boolean;
}

/** What the queue reads from the broker: how many requests wait. */
export interface PendingSource {
  pending(): readonly unknown[];
  on(listener: (notice: { type: string }) => void): () => void;
}

interface Active {
  request: ApprovalRequest;
  answer: (answer: ResolverAnswer) => void;
  shownAt: number;
  page: number;
}

/** The rules an "always" would grant for a request (its policy suggestions), or none. */
export function sessionScope(request: ApprovalRequest): string[] {
  return request.suggestions ?? [];
}

/** An interactive resolver answered by key presses. */
export class ApprovalQueue implements Resolver {
  readonly interactive = true;
  private active: Active | undefined;
  private source: PendingSource | undefined;
  private detachSource: (() => void) | undefined;
  private readonly listeners = new Set<() => void>();
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: { clock?: () => number; graceMs?: number } = {}) {}

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  private get graceMs(): number {
    return this.options.graceMs ?? KEY_GRACE_MS;
  }

  /** Counts waiting requests from the broker (called once the runtime exists). */
  attach(source: PendingSource): void {
    this.detachSource?.();
    this.source = source;
    this.detachSource = source.on(() => this.changed());
    this.changed();
  }

  /** Called by the broker with the head of its queue. */
  resolve(request: ApprovalRequest, signal: AbortSignal): Promise<ResolverAnswer> {
    return new Promise<ResolverAnswer>((resolve) => {
      const active: Active = {
        request,
        shownAt: this.now(),
        page: 0,
        answer: (answer) => {
          if (this.active !== active) return;
          this.active = undefined;
          resolve(answer);
          this.changed();
        },
      };
      this.active = active;
      // The request no longer matters (its run ended): the broker settles it; drop the prompt.
      signal.addEventListener('abort', () => active.answer({ decision: 'deny' }), { once: true });
      this.changed();
      this.redrawAfterGrace();
    });
  }

  /** Redraws when the grace ends, so a prompt can show its keys as live. */
  private redrawAfterGrace(): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = setTimeout(() => this.changed(), this.graceMs + 1);
    this.graceTimer.unref?.();
  }

  /** What to render now. */
  view(): ApprovalView {
    const active = this.active;
    const waiting = this.source?.pending().length ?? (active ? 1 : 0);
    return {
      head: active?.request,
      total: Math.max(waiting, active ? 1 : 0),
      detail: (active?.page ?? 0) > 0,
      page: active?.page ?? 0,
      settling: active !== undefined && this.now() - active.shownAt < this.graceMs,
    };
  }

  /** Subscribes to changes of the view; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Handles one key. */
  press(key: ApprovalKey): KeyOutcome {
    const active = this.active;
    if (!active) return 'none';
    // A key during the grace, or any key that is not an answer, means someone is typing: the grace
    // starts again, so a burst of keys never runs into the prompt.
    if (this.now() - active.shownAt < this.graceMs || key === 'other') {
      active.shownAt = this.now();
      this.redrawAfterGrace();
      this.changed();
      return 'ignored';
    }
    const r = active.request;
    switch (key) {
      case 'y':
        active.answer({ decision: 'allow', scope: 'once', reason: 'approved by the user' });
        return 'answered';
      case 'a': {
        const scope = sessionScope(r);
        if (scope.length === 0) return 'unavailable';
        active.answer({
          decision: 'allow',
          scope: 'session',
          reason: `allowed by the user for this session (${scope.join(', ')})`,
        });
        return 'answered';
      }
      case 'n':
      case 'escape':
        active.answer({
          decision: 'deny',
          scope: 'once',
          reason: `the user denied this call (${r.summary.slice(0, 200)}). Do not retry it; continue without it, or say what you needed it for`,
        });
        return 'answered';
      case 'd':
        active.page += 1;
        this.changed();
        return 'toggled';
    }
  }

  /** Stops listening to the broker. */
  close(): void {
    this.detachSource?.();
    clearTimeout(this.graceTimer);
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A broken view must not stall approvals.
      }
    }
  }
}
