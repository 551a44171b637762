// The body of a response that arrives over the model channel: chunks pushed by the channel, read
// once as an async iterable (which the SDK prefers to a reader) or through a minimal reader. Node's
// web ReadableStream would do, but costs several promises per chunk on the path of every streamed
// model event: with it, parsing a reply's last chunk took about 0.7 ms of a subagent's launch.

/** What a reader's `read()` resolves to. */
type ReadResult = { done: false; value: Uint8Array } | { done: true; value: undefined };

/** A one-reader byte stream fed by `push`, ended by `end` or `fail`. */
export class HostBody implements AsyncIterable<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: Error | undefined;
  private waiter: { resolve: (r: ReadResult) => void; reject: (e: Error) => void } | undefined;
  private locked = false;

  /**
   * `onCancel` runs once if the reader gives up before the end (the request is then aborted);
   * `onRead` is told the size of every chunk the reader takes (the channel's flow control).
   */
  constructor(
    private readonly onCancel: () => void,
    private readonly onRead: (bytes: number) => void = () => undefined,
  ) {}

  /** Adds a chunk (ignored after the end). */
  push(chunk: Uint8Array): void {
    if (this.ended) return;
    if (this.waiter) {
      const { resolve } = this.waiter;
      this.waiter = undefined;
      this.onRead(chunk.byteLength);
      resolve({ done: false, value: chunk });
    } else this.chunks.push(chunk);
  }

  /** Ends the body: chunks already pushed are still read. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter && this.chunks.length === 0) {
      const { resolve } = this.waiter;
      this.waiter = undefined;
      resolve({ done: true, value: undefined });
    }
  }

  /** Fails the body: the next read (after chunks already pushed) rejects with `error`. */
  fail(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.chunks.length = 0;
    if (this.waiter) {
      const { reject } = this.waiter;
      this.waiter = undefined;
      reject(error);
    }
  }

  private read(): Promise<ReadResult> {
    const chunk = this.chunks.shift();
    if (chunk !== undefined) {
      this.onRead(chunk.byteLength);
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** Stops reading: drops what is left and aborts the request, unless the body had ended. */
  cancel(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.chunks.length = 0;
      this.onCancel();
    }
    return Promise.resolve();
  }

  private lock(): void {
    if (this.locked) throw new TypeError('the response body is already being read');
    this.locked = true;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    this.lock();
    return {
      next: () => this.read() as Promise<IteratorResult<Uint8Array>>,
      return: async () => {
        await this.cancel();
        this.locked = false;
        return { done: true, value: undefined };
      },
    };
  }

  /** A reader, as a web stream hands out (for callers that ask for one). */
  getReader(): { read(): Promise<ReadResult>; cancel(): Promise<void>; releaseLock(): void } {
    this.lock();
    return {
      read: () => this.read(),
      cancel: () => this.cancel(),
      releaseLock: () => void (this.locked = false),
    };
  }
}
