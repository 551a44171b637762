// Sizes the threads started ahead for a run that may start subagents, from its model stream. While
// one of its model requests is in flight it wants a guess: for its first request `speculative()`
// (the most subagents a message may start, bounded by free slots), later as many as its last reply
// started. As the response streams, each delegation tool_use block that begins
// (`content_block_start` of Task, or of an agent exposed as a tool) is one certain subagent; when
// the response ends, it wants exactly the blocks it saw, which its children then take one by one.
// The host reads only the `content_block_start` lines of the stream it already relays, each bounded
// in size; nothing here decides what a run may do.
import type { ModelStreamObserver } from '../capabilities/model-http.js';

/** What the observer needs from the runtime. */
export interface PrestartSizing {
  /** Delegation tool names this run was granted (Task, exposed agents). */
  names: ReadonlySet<string>;
  /** Threads to want while a request is in flight and nothing is known yet. */
  speculative(): number;
  /** Most threads the run's children could use now (caps and free slots). */
  limit(): number;
  /** Sets the run's want (the pool keeps that many threads started ahead). */
  want(count: number): void;
}

/** An SSE line longer than this is not a content_block_start of a tool call: skipped unread. */
const MAX_LINE = 16_384;
const MARK = '"content_block_start"';

/** The observer for one run; `close()` withdraws its want when the run ends. */
export function prestartObserver(sizing: PrestartSizing): ModelStreamObserver & { close(): void } {
  let decoder = new TextDecoder();
  let line = '';
  let skipping = false;
  let blocks = 0;
  let guess = 0;
  /** Delegation blocks of the last complete reply; undefined before the first. */
  let lastReply: number | undefined;
  let active = false;
  const update = () => sizing.want(Math.min(Math.max(guess, blocks), sizing.limit()));

  const take = (text: string) => {
    if (!text.includes(MARK)) return;
    const data = text.startsWith('data:') ? text.slice(5) : undefined;
    if (data === undefined) return;
    let event: { content_block?: { type?: unknown; name?: unknown } } | undefined;
    try {
      event = JSON.parse(data) as typeof event;
    } catch {
      return;
    }
    const block = event?.content_block;
    if (block?.type === 'tool_use' && typeof block.name === 'string' && sizing.names.has(block.name)) {
      blocks++;
      update();
    }
  };

  return {
    requestStarted() {
      active = true;
      decoder = new TextDecoder();
      line = '';
      skipping = false;
      blocks = 0;
      guess = lastReply ?? sizing.speculative();
      update();
    },
    chunk(bytes) {
      const parts = decoder.decode(bytes, { stream: true }).split('\n');
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        const last = i === parts.length - 1;
        if (!skipping && line.length + part.length <= MAX_LINE) line += part;
        else {
          skipping = true;
          line = '';
        }
        if (last) break;
        if (!skipping) take(line.endsWith('\r') ? line.slice(0, -1) : line);
        line = '';
        skipping = false;
      }
    },
    requestEnded(ok) {
      if (!active) return;
      active = false;
      if (ok) lastReply = blocks;
      guess = 0;
      update();
    },
    close() {
      sizing.want(0);
    },
  };
}
