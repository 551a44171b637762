// A command's output past its cap: the first and last halves are kept around a marker that says
// how much was left out, so both how a command started and how it ended stay visible.

/** Keeps the first and last halves of a stream past its cap, counting what was dropped. */
export class OutputCap {
  private readonly head: Buffer[] = [];
  private readonly tail: Buffer[] = [];
  private headBytes = 0;
  private tailBytes = 0;
  /** Bytes seen in total. */
  total = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headRoom = Math.ceil(this.max / 2) - this.headBytes;
    if (headRoom > 0) {
      this.head.push(chunk.subarray(0, headRoom));
      this.headBytes += Math.min(headRoom, chunk.length);
      chunk = chunk.subarray(headRoom);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    const tailCap = this.max - Math.ceil(this.max / 2);
    while (this.tailBytes > tailCap && this.tail.length > 0) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - tailCap;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  get truncated(): boolean {
    return this.total > this.max;
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (!this.truncated) return head + tail;
    const omitted = this.total - this.headBytes - this.tailBytes;
    return `${head}\n[... ${omitted} bytes of output omitted ...]\n${tail}`;
  }
}
