// Sizes the threads started ahead for a run that may start subagents, from its model stream: by
// evidence, a few threads ahead of it. While its first request is in flight and nothing is known it
// wants `ahead()` threads; as the response streams, each delegation tool_use block that begins
// (`content_block_start` of Task, or of an agent exposed as a tool) is one certain subagent, and it
// wants those blocks plus `ahead()` more (the next blocks' threads load while the model writes the
// current one); when the response ends, it wants exactly the blocks it saw, which its children then
// take one by one. A later request starts from what its last reply started. So a lead that starts
// one subagent pays for a few threads, not for the most a message could start. The host reads only
// the `content_block_start` lines of the stream it already relays, each bounded in size; nothing
// here decides what a run may do. Where the run's agent has fanned out before, a request starts
// from what its latest runs put in one reply at that turn or later (`remembered`), and the run's
// own replies are handed back when it ends (`remember`) for the next run.
import type { ModelStreamObserver } from '../capabilities/model-http.js';

/** What the observer needs from the runtime. */
export interface PrestartSizing {
  /** Delegation tool names this run was granted (Task, exposed agents). */
  names: ReadonlySet<string>;
  /** Threads to keep started ahead of the delegation blocks seen so far. */
  ahead(): number;
  /** Most threads the run's children could use now (caps and free slots). */
  limit(): number;
  /** Sets the run's want (the pool keeps that many threads started ahead). */
  want(count: number): void;
  /** Threads the agent's latest runs needed at turn `turn` or later (0 or absent: nothing known). */
  remembered?(turn: number): number;
  /** Takes the delegation blocks of each of the run's complete replies, in order, when it ends. */
  remember?(widths: readonly number[]): void;
}

/** An SSE line longer than this is not a content_block_start of a tool call: skipped unread. */
const MAX_LINE = 16_384;
const MARK = '"content_block_start"';
/** The line that ends a reply's content (its stop reason): no block can begin after it. */
const CONTENT_END = /^event:\s*message_(?:delta|stop)\s*$/;

/** The observer for one run; `close()` withdraws its want when the run ends. */
export function prestartObserver(sizing: PrestartSizing): ModelStreamObserver & { close(): void } {
  let decoder = new TextDecoder();
  let line = '';
  let skipping = false;
  let blocks = 0;
  let guess = 0;
  /** Delegation blocks of each complete reply so far (the last one's is where a request starts). */
  const widths: number[] = [];
  let active = false;
  /** Whether the current response is still streaming (its blocks may be followed by more). */
  let streaming = false;
  const update = () => {
    const evidence = blocks > 0 && streaming ? blocks + sizing.ahead() : blocks;
    sizing.want(Math.min(Math.max(guess, evidence), sizing.limit()));
  };

  /** Reads one SSE line; true when it changed what the run wants. */
  const take = (text: string): boolean => {
    if (streaming && CONTENT_END.test(text)) {
      // The reply has written all its blocks: nothing more to start ahead of.
      streaming = false;
      guess = 0;
      return true;
    }
    if (!text.includes(MARK)) return false;
    const data = text.startsWith('data:') ? text.slice(5) : undefined;
    if (data === undefined) return false;
    let event: { content_block?: { type?: unknown; name?: unknown } } | undefined;
    try {
      event = JSON.parse(data) as typeof event;
    } catch {
      return false;
    }
    const block = event?.content_block;
    if (block?.type !== 'tool_use' || typeof block.name !== 'string' || !sizing.names.has(block.name))
      return false;
    blocks++;
    return true;
  };

  return {
    requestStarted() {
      active = true;
      decoder = new TextDecoder();
      line = '';
      skipping = false;
      blocks = 0;
      streaming = true;
      const before = widths.length === 0 ? sizing.ahead() : widths.at(-1)!;
      guess = Math.max(before, sizing.remembered?.(widths.length) ?? 0);
      update();
    },
    chunk(bytes) {
      // The want changes once per chunk: a reply that arrives whole (a proxy that buffers, a fast
      // server) starts threads for its blocks only, none ahead of blocks that will never come.
      let changed = false;
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
        if (!skipping && take(line.endsWith('\r') ? line.slice(0, -1) : line)) changed = true;
        line = '';
        skipping = false;
      }
      if (changed) update();
    },
    requestEnded(ok) {
      if (!active) return;
      active = false;
      streaming = false;
      if (ok) widths.push(blocks);
      guess = 0;
      update();
    },
    close() {
      sizing.want(0);
      sizing.remember?.(widths);
    },
  };
}
