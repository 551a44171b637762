// The chat's state container: actions are folded by the reducer in batches, and listeners (Ink's
// useSyncExternalStore) hear at most one change per interval, however many agents stream. An
// urgent action (an approval, a key the person typed) is drawn at once.
import { chatReducer, initialChat, type ChatAction, type ChatState } from './chat-state.js';

/** Options of a store. */
export interface ChatStoreOptions {
  /** Least time between two notifications (default 50 ms). */
  intervalMs?: number;
}

/** Batched chat state. */
export class ChatStore {
  private state: ChatState;
  private pending: ChatAction[] = [];
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;

  constructor(
    initial: ChatState = initialChat(),
    private readonly options: ChatStoreOptions = {},
  ) {
    this.state = initial;
  }

  /** The state as of the last flush. */
  getState = (): ChatState => this.state;

  /** Subscribes to flushes; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Queues an action; `urgent` flushes now. */
  dispatch(action: ChatAction, urgent = false): void {
    this.pending.push(action);
    if (urgent) {
      this.flush();
      return;
    }
    if (this.timer) return;
    const wait = Math.max(0, (this.options.intervalMs ?? 50) - (performance.now() - this.lastFlush));
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref?.();
  }

  /** Folds every queued action and tells the listeners once. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const actions = this.pending;
    this.pending = [];
    this.state = actions.reduce(chatReducer, this.state);
    this.lastFlush = performance.now();
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A view's bug must not stop the chat's state.
      }
    }
  }

  /** Stops the timer (actions queued later are folded on the next flush). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
