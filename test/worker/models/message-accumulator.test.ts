// The raw-event fold on its own: block kinds the fake server does not script (thinking,
// citations), empty text, tool input split in pieces, and a tool call left open at the end.
import { describe, expect, it } from 'vitest';
import { MessageAccumulator, type RawStreamEvent } from '../../../src/worker/models/message-accumulator.js';

const start = (index: number, content_block: Record<string, unknown>): RawStreamEvent => ({
  type: 'content_block_start',
  index,
  content_block,
});
const delta = (index: number, d: Record<string, unknown>): RawStreamEvent => ({
  type: 'content_block_delta',
  index,
  delta: d,
});
const stop = (index: number): RawStreamEvent => ({ type: 'content_block_stop', index });

describe('MessageAccumulator', () => {
  it('keeps thinking blocks with their signature, drops empty text, parses pieced tool input', () => {
    const acc = new MessageAccumulator();
    const out = [
      {
        type: 'message_start',
        message: { usage: { input_tokens: 9, output_tokens: 1, cache_read_input_tokens: null } },
      },
      start(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'thinking_delta', thinking: 'Let me ' }),
      delta(0, { type: 'thinking_delta', thinking: 'think.' }),
      delta(0, { type: 'signature_delta', signature: 'sig==' }),
      stop(0),
      start(1, { type: 'text', text: '' }),
      stop(1),
      start(2, { type: 'tool_use', id: 'toolu_1', name: 'Grep', input: {} }),
      delta(2, { type: 'input_json_delta', partial_json: '{"pattern": "a' }),
      delta(2, { type: 'input_json_delta', partial_json: 'b", "-i": true}' }),
      stop(2),
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 30, input_tokens: null },
      },
      { type: 'message_stop' },
    ].flatMap((e) => acc.push(e as RawStreamEvent));
    expect(out).toEqual([
      {
        type: 'usage',
        usage: {
          input_tokens: 9,
          output_tokens: 1,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      },
      { type: 'tool-use', id: 'toolu_1', name: 'Grep', input: { pattern: 'ab', '-i': true } },
      {
        type: 'usage',
        usage: {
          input_tokens: 9,
          output_tokens: 30,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      },
    ]);
    expect(acc.stopped).toBe(true);
    expect(acc.finish()).toEqual([
      {
        type: 'message-end',
        stopReason: 'tool_use',
        content: [
          { type: 'thinking', thinking: 'Let me think.', signature: 'sig==' },
          { type: 'tool_use', id: 'toolu_1', name: 'Grep', input: { pattern: 'ab', '-i': true } },
        ],
      },
    ]);
  });

  it('closes a tool call left open at max_tokens with an input error', () => {
    const acc = new MessageAccumulator();
    acc.push(start(0, { type: 'text', text: 'Reading ' }));
    acc.push(delta(0, { type: 'text_delta', text: 'now.' }));
    acc.push(stop(0));
    acc.push(start(1, { type: 'tool_use', id: 'toolu_2', name: 'Read', input: {} }));
    acc.push(delta(1, { type: 'input_json_delta', partial_json: '{"file_path": "src/' }));
    acc.push({ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 5 } });
    const [use, end] = acc.finish();
    expect(use).toMatchObject({
      type: 'tool-use',
      id: 'toolu_2',
      input: {},
      inputError: expect.stringContaining('incomplete or malformed JSON'),
    });
    expect(end).toEqual({
      type: 'message-end',
      stopReason: 'max_tokens',
      content: [
        { type: 'text', text: 'Reading now.' },
        { type: 'tool_use', id: 'toolu_2', name: 'Read', input: {} },
      ],
    });
    expect(acc.text).toBe('Reading now.');
  });

  it('collects citations and ignores events it does not know', () => {
    const acc = new MessageAccumulator();
    acc.push(start(0, { type: 'text', text: '' }));
    acc.push(delta(0, { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x' } }));
    acc.push(delta(0, { type: 'text_delta', text: 'Cited.' }));
    expect(acc.push({ type: 'ping' })).toEqual([]);
    expect(
      acc.push({ type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'orphan' } }),
    ).toEqual([]);
    acc.push(stop(0));
    acc.push({ type: 'message_stop' });
    expect(acc.finish().at(-1)).toEqual({
      type: 'message-end',
      stopReason: 'end_turn',
      content: [{ type: 'text', text: 'Cited.', citations: [{ type: 'char_location', cited_text: 'x' }] }],
    });
  });

  it('holds a reply to its caps: text (thinking and citations count) and tool input, each on its own', () => {
    const caps = { maxReplyChars: 10, maxToolInputChars: 20 };
    const text = new MessageAccumulator(caps);
    expect(text.push(start(0, { type: 'text', text: 'abcd' }))).toEqual([
      { type: 'text-delta', text: 'abcd' },
    ]);
    expect(text.push(delta(0, { type: 'text_delta', text: 'efghij' }))).toHaveLength(1);
    expect(() => text.push(delta(0, { type: 'text_delta', text: 'k' }))).toThrow(
      expect.objectContaining({
        code: 'too_large',
        details: expect.objectContaining({ reason: 'reply_too_large' }),
      }),
    );
    const thinking = new MessageAccumulator(caps);
    thinking.push(start(0, { type: 'thinking', thinking: '' }));
    expect(() => thinking.push(delta(0, { type: 'thinking_delta', thinking: 't'.repeat(11) }))).toThrow(
      /passed 10 characters of text \(maxReplyChars\)/,
    );
    const tool = new MessageAccumulator(caps);
    tool.push(start(0, { type: 'text', text: 'x'.repeat(10) }));
    tool.push(start(1, { type: 'tool_use', id: 't', name: 'Write', input: {} }));
    tool.push(delta(1, { type: 'input_json_delta', partial_json: '{"content":"' }));
    expect(() => tool.push(delta(1, { type: 'input_json_delta', partial_json: 'y'.repeat(20) }))).toThrow(
      /passed 20 characters of tool input \(maxToolInputChars\)/,
    );
    const unbounded = new MessageAccumulator();
    unbounded.push(start(0, { type: 'text', text: '' }));
    expect(unbounded.push(delta(0, { type: 'text_delta', text: 'w'.repeat(100_000) }))).toHaveLength(1);
  });
});
