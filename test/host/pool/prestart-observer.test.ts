// Sizing the threads started ahead from a delegating run's model stream: `ahead` threads while the
// first request is in flight, then the delegation tool_use blocks the stream has shown begin
// (whatever the chunking) plus `ahead`, exactly the blocks seen once the reply ends, and the last
// reply's count as the guess for the next request. Text that merely mentions a block start counts
// for nothing.
import { describe, expect, it } from 'vitest';
import { widestStillToCome } from '../../../src/host/agents/fanout-memory.js';
import { prestartObserver } from '../../../src/host/pool/prestart-observer.js';
import {
  renderStream,
  replyUsage,
  textReply,
  toolUseReply,
  type MessageStep,
} from '../../support/fake-anthropic.js';

function observer(options: { ahead?: number; limit?: number; names?: string[]; history?: number[][] } = {}) {
  const wants: number[] = [];
  const remembered: (readonly number[])[] = [];
  const history = options.history;
  const o = prestartObserver({
    names: new Set(options.names ?? ['Task']),
    ahead: () => options.ahead ?? 2,
    limit: () => options.limit ?? 64,
    want: (count) => wants.push(count),
    ...(history
      ? {
          remembered: (turn: number) => widestStillToCome(history, turn),
          remember: (widths: readonly number[]) => void remembered.push(widths),
        }
      : {}),
  });
  return { o, wants, remembered };
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** A reply's SSE text, as the fake server writes it. */
const sse = (step: MessageStep) =>
  renderStream('msg_1', 'claude-test-1', step.content, step, replyUsage(step, 100, step.content)).join('');

/** Feeds a reply one SSE event at a time, as a model writing it over seconds would. */
const stream = (o: { chunk(bytes: Uint8Array): void }, step: MessageStep) => {
  for (const event of sse(step).split(/(?<=\n\n)/)) o.chunk(bytes(event));
};

const tasks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: 'Task',
    input: { description: `p${i}`, prompt: `p${i}`, subagent_type: 'sub' },
  }));

describe('prestartObserver', () => {
  it('wants `ahead` while the first request is in flight, then exactly the Task blocks it saw', () => {
    const { o, wants } = observer({ ahead: 2 });
    o.requestStarted();
    expect(wants).toEqual([2]);
    const reply = sse(
      toolUseReply([
        { name: 'Task', input: { description: 'a', prompt: 'a', subagent_type: 'sub' } },
        { name: 'Glob', input: { pattern: '*' } },
        { name: 'Task', input: { description: 'b', prompt: 'b', subagent_type: 'sub' } },
      ]),
    );
    // Cut into 7-byte pieces: block starts straddle chunks.
    const all = bytes(reply);
    for (let at = 0; at < all.length; at += 7) o.chunk(all.subarray(at, at + 7));
    // Each Task block that began kept two more threads ahead of it (the Glob block changed nothing),
    // and the reply's stop reason left exactly the blocks.
    expect(wants).toEqual([2, 3, 4, 2]);
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(2);
    // The next request guesses what the last reply started.
    o.requestStarted();
    expect(wants.at(-1)).toBe(2);
    o.chunk(bytes(sse(textReply('done'))));
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(0);
    o.close();
    expect(wants.at(-1)).toBe(0);
  });

  it('keeps `ahead` threads ahead of the blocks as they begin, within the limit', () => {
    const { o, wants } = observer({ ahead: 2, limit: 5 });
    o.requestStarted();
    stream(o, toolUseReply(tasks(8)));
    expect(wants).toEqual([2, 3, 4, 5, 5, 5, 5, 5, 5, 5]);
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(5);
  });

  it('starts one subagent for the price of `ahead` threads, not of the most a message may start', () => {
    const { o, wants } = observer({ ahead: 1, limit: 16 });
    o.requestStarted();
    stream(o, toolUseReply(tasks(1)));
    expect(wants).toEqual([1, 2, 1]);
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(1);
  });

  it('wants only the blocks of a reply that arrives whole, none ahead of blocks that cannot come', () => {
    const { o, wants } = observer({ ahead: 4, limit: 64 });
    o.requestStarted();
    o.chunk(bytes(sse(toolUseReply(tasks(3)))));
    expect(wants).toEqual([4, 3]);
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(3);
  });

  it('with ahead 0 wants nothing before the stream shows a block, then the blocks alone', () => {
    const { o, wants } = observer({ ahead: 0 });
    o.requestStarted();
    expect(wants).toEqual([0]);
    stream(o, toolUseReply(tasks(2)));
    expect(wants).toEqual([0, 1, 2, 2]);
  });

  it('counts agents exposed as tools, and nothing for text that looks like a block start', () => {
    const { o, wants } = observer({ ahead: 0, names: ['Task', 'reviewer'] });
    o.requestStarted();
    const fake = `data: {"type":"content_block_start","content_block":{"type":"tool_use","name":"Task"}}`;
    o.chunk(bytes(sse(textReply(`${fake}\n${fake}`))));
    o.chunk(bytes(sse(toolUseReply([{ name: 'reviewer', input: { prompt: 'x' } }]))));
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(1);
  });

  it('skips an over-long line unread, and a failed request keeps the last good count', () => {
    const { o, wants } = observer({ ahead: 3 });
    o.requestStarted();
    o.chunk(bytes(`data: {"type":"content_block_start","pad":"${'x'.repeat(20_000)}"`));
    o.chunk(bytes(`,"content_block":{"type":"tool_use","name":"Task"}}\n\n`));
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(0);
    o.requestStarted();
    expect(wants.at(-1)).toBe(0);
    o.requestEnded(false);
    o.requestStarted();
    expect(wants.at(-1)).toBe(0);
    // An end without a start (the request failed before it was under way) changes nothing.
    const before = wants.length;
    o.requestEnded(true);
    o.requestEnded(true);
    expect(wants.length).toBe(before + 1);
  });

  it("starts each request from the widest reply its agent's latest runs made at that turn or later", () => {
    // Two earlier runs: one read first and fanned out 6 at its second reply, one fanned out 3 at once.
    const { o, wants, remembered } = observer({
      ahead: 2,
      history: [
        [0, 6, 0],
        [3, 0],
      ],
    });
    o.requestStarted();
    // Turn 0: the widest still to come is 6 (above prestartThreads' 2).
    expect(wants.at(-1)).toBe(6);
    o.chunk(bytes(sse(toolUseReply([{ name: 'Glob', input: { pattern: '*' } }]))));
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(0);
    o.requestStarted();
    expect(wants.at(-1)).toBe(6);
    o.chunk(bytes(sse(toolUseReply(tasks(6)))));
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(6);
    o.requestStarted();
    // Turn 2: no run fanned out this late; the last reply's count stands, as without a history.
    expect(wants.at(-1)).toBe(6);
    o.chunk(bytes(sse(textReply('done'))));
    o.requestEnded(true);
    o.close();
    expect(remembered).toEqual([[0, 6, 0]]);
  });

  it('keeps a remembered width under the caps, and a reply below it ends at its own blocks', () => {
    const { o, wants } = observer({ ahead: 2, limit: 4, history: [[1000]] });
    o.requestStarted();
    expect(wants.at(-1)).toBe(4);
    o.chunk(bytes(sse(toolUseReply(tasks(1)))));
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(1);
  });
});
