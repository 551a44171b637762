// Sizing the threads started ahead from a delegating run's model stream: a guess while the first
// request is in flight, one more per delegation tool_use block as the stream shows it begin
// (whatever the chunking), exactly the blocks seen once the reply ends, and the last reply's count
// as the guess for the next request. Text that merely mentions a block start counts for nothing.
import { describe, expect, it } from 'vitest';
import { prestartObserver } from '../../../src/host/pool/prestart-observer.js';
import {
  renderStream,
  replyUsage,
  textReply,
  toolUseReply,
  type MessageStep,
} from '../../support/fake-anthropic.js';

function observer(options: { speculative?: number; limit?: number; names?: string[] } = {}) {
  const wants: number[] = [];
  const o = prestartObserver({
    names: new Set(options.names ?? ['Task']),
    speculative: () => options.speculative ?? 16,
    limit: () => options.limit ?? 64,
    want: (count) => wants.push(count),
  });
  return { o, wants };
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** A reply's SSE text, as the fake server writes it. */
const sse = (step: MessageStep) =>
  renderStream('msg_1', 'claude-test-1', step.content, step, replyUsage(step, 100, step.content)).join('');

describe('prestartObserver', () => {
  it('wants the guess while the first request is in flight, then exactly the Task blocks it saw', () => {
    const { o, wants } = observer({ speculative: 16 });
    o.requestStarted();
    expect(wants).toEqual([16]);
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

  it('raises the want past the guess as blocks begin, within the limit', () => {
    const { o, wants } = observer({ speculative: 2, limit: 5 });
    o.requestStarted();
    const tasks = Array.from({ length: 8 }, (_, i) => ({
      name: 'Task',
      input: { description: `p${i}`, prompt: `p${i}`, subagent_type: 'sub' },
    }));
    o.chunk(bytes(sse(toolUseReply(tasks))));
    expect(Math.max(...wants)).toBe(5);
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(5);
  });

  it('counts agents exposed as tools, and nothing for text that looks like a block start', () => {
    const { o, wants } = observer({ speculative: 0, names: ['Task', 'reviewer'] });
    o.requestStarted();
    const fake = `data: {"type":"content_block_start","content_block":{"type":"tool_use","name":"Task"}}`;
    o.chunk(bytes(sse(textReply(`${fake}\n${fake}`))));
    o.chunk(bytes(sse(toolUseReply([{ name: 'reviewer', input: { prompt: 'x' } }]))));
    o.requestEnded(true);
    expect(wants.at(-1)).toBe(1);
  });

  it('skips an over-long line unread, and a failed request keeps the last good count', () => {
    const { o, wants } = observer({ speculative: 3 });
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
});
