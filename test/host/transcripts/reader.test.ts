import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTranscript, readTranscript } from '../../../src/host/transcripts/reader.js';
import { closeDanglingToolUses, INTERRUPTED_RESULT } from '../../../src/host/transcripts/resume.js';
import { openTranscript } from '../../../src/host/transcripts/writer.js';
import type { ConversationMessage } from '../../../src/shared/events.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-transcript-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stamp = { agentId: 'r1', depth: 0, at: 1 };
const msg = (message: ConversationMessage) => ({ ...stamp, type: 'message-append', message });

describe('readTranscript', () => {
  it('rebuilds the conversation and finds the status', async () => {
    const t = await openTranscript(dir, 'r1', { header: { agentType: 'explore' } });
    t.append({
      ...stamp,
      type: 'agent-start',
      agentType: 'explore',
      model: 'm',
      description: 'd',
      prompt: 'p',
    });
    t.append(msg({ role: 'user', content: 'find the bug' }));
    t.append({ ...stamp, type: 'text-delta', text: 'looking' });
    t.append(msg({ role: 'assistant', content: [{ type: 'text', text: 'found it' }] }));
    await t.close({ status: 'completed', output: 'found it' });
    const read = await readTranscript(t.path);
    expect(read.header).toMatchObject({ type: 'header', agentId: 'r1', agentType: 'explore' });
    expect(read.messages).toEqual([
      { role: 'user', content: 'find the bug' },
      { role: 'assistant', content: [{ type: 'text', text: 'found it' }] },
    ]);
    expect(read.events.map((e) => e.type)).toEqual([
      'agent-start',
      'message-append',
      'text-delta',
      'message-append',
    ]);
    expect(read.status).toMatchObject({ status: 'completed', output: 'found it' });
    expect(read).toMatchObject({ segments: 1, torn: false, badLines: 0, interrupted: false });
  });

  it('tolerates a torn last line and counts a bad one in the middle', async () => {
    const file = path.join(dir, 'torn.jsonl');
    await writeFile(
      file,
      [
        JSON.stringify({ type: 'header', version: 1, agentId: 'torn', at: 1, resumed: false }),
        'not json',
        JSON.stringify(msg({ role: 'user', content: 'hi' })),
        '{"type":"message-app',
      ].join('\n'),
    );
    const read = await readTranscript(file);
    expect(read.torn).toBe(true);
    expect(read.badLines).toBe(1);
    expect(read.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(read.status).toBeUndefined();
  });

  it('reads a complete last line without a trailing newline', async () => {
    const file = path.join(dir, 'no-newline.jsonl');
    await writeFile(file, JSON.stringify(msg({ role: 'user', content: 'x' })));
    const read = await readTranscript(file);
    expect(read).toMatchObject({ torn: false, messages: [{ role: 'user', content: 'x' }] });
  });

  it('counts segments and forgets the old status after a resume', async () => {
    const first = await openTranscript(dir, 'seg');
    first.append(msg({ role: 'user', content: 'one' }));
    await first.close({ status: 'completed', output: '' });
    const second = await openTranscript(dir, 'seg');
    second.append(msg({ role: 'user', content: 'two' }));
    await second.flush();
    let read = await readTranscript(second.path);
    expect(read.segments).toBe(2);
    expect(read.status).toBeUndefined();
    expect(read.header?.resumed).toBe(false);
    expect(read.messages.map((m) => m.content)).toEqual(['one', 'two']);
    await second.close({ status: 'cancelled', output: '' });
    read = await readTranscript(second.path);
    expect(read.status?.status).toBe('cancelled');
  });

  it('closes tool calls that a kill left unanswered', async () => {
    const t = await openTranscript(dir, 'dangling');
    t.append(msg({ role: 'user', content: 'go' }));
    t.append(msg({ role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: {} }] }));
    await t.flush();
    const read = await readTranscript(t.path, { events: false });
    expect(read.events).toEqual([]);
    expect(read.interrupted).toBe(true);
    expect(read.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'tu1', content: INTERRUPTED_RESULT, is_error: true }],
    });
    await t.close({ status: 'timeout', output: '' });
  });

  it('rejects a missing file with not_found', async () => {
    await expect(readTranscript(path.join(dir, 'nope.jsonl'))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reads a 10 MB transcript quickly', async () => {
    const t = await openTranscript(dir, 'big');
    const text = 'lorem ipsum dolor sit amet '.repeat(8);
    let bytes = 0;
    let messages = 0;
    for (let i = 0; bytes < 10 * 1024 * 1024; i++) {
      const event =
        i % 10 === 0
          ? msg({ role: i % 20 === 0 ? 'user' : 'assistant', content: `${i} ${text}` })
          : { ...stamp, type: 'text-delta', text };
      if (i % 10 === 0) messages++;
      bytes += JSON.stringify(event).length + 1;
      t.append(event);
    }
    await t.close({ status: 'completed', output: '' });
    const start = performance.now();
    const read = await readTranscript(t.path);
    const ms = performance.now() - start;
    expect(read.messages).toHaveLength(messages);
    expect(read.status?.status).toBe('completed');
    expect(ms).toBeLessThan(3000);
  });
});

describe('closeDanglingToolUses', () => {
  const use = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: {} });
  it('adds missing results to a partial answer, before any text', () => {
    const messages: ConversationMessage[] = [
      { role: 'assistant', content: [use('a'), use('b')] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
          { type: 'text', text: 'note' },
        ],
      },
    ];
    const { messages: out, closed } = closeDanglingToolUses(messages);
    expect(closed).toBe(1);
    expect(out[1]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
      { type: 'tool_result', tool_use_id: 'b', content: INTERRUPTED_RESULT, is_error: true },
      { type: 'text', text: 'note' },
    ]);
    expect(messages[1]?.content).toHaveLength(2);
  });

  it('leaves a complete conversation alone', () => {
    const messages: ConversationMessage[] = [
      { role: 'assistant', content: [use('a')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] },
      { role: 'assistant', content: 'done' },
    ];
    expect(closeDanglingToolUses(messages)).toEqual({ messages, closed: 0 });
  });
});

describe('findTranscript', () => {
  it('finds an existing transcript and nothing else', async () => {
    await appendFile(path.join(dir, 'found.jsonl'), '');
    expect(await findTranscript(dir, 'found')).toBe(path.join(dir, 'found.jsonl'));
    expect(await findTranscript(dir, 'missing')).toBeUndefined();
    await expect(findTranscript(dir, '../found')).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
