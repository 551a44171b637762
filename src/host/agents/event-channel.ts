// A push-to-pull channel: the runtime pushes events as runs emit them; a library caller consumes
// them with `for await`. Unbounded by design for a single task's events; closed when the task ends.

/** An async iterable fed by `push` and finished by `close`. */
export class EventChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private readonly waiters: ((result: IteratorResult<T>) => void)[] = [];
  private closed = false;

  /** Adds an item (dropped after close). */
  push(item: T): void {
    if (this.closed) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter({ value: item, done: false });
    else this.buffer.push(item);
  }

  /** Ends the iteration once the buffer drains. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.buffer.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiters.push(resolve));
      },
      return: () => {
        this.close();
        this.buffer.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
