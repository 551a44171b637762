// The next user message: the prompt alone as a string, tool results and notes as blocks of one
// message, the grace note kept apart from the prompt; every append stamped with the run's identity.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events.js';
import { eventStamp } from '../../../src/worker/loop/agent-event.js';
import { Conversation } from '../../../src/worker/loop/conversation.js';
import { NextMessage } from '../../../src/worker/loop/next-message.js';

function setup() {
  const convo = new Conversation([], 1_000_000);
  let clock = 7;
  const event = eventStamp({ agentId: 'a-1', parentId: 'lead', depth: 1 }, () => clock++);
  return { convo, next: new NextMessage(convo, event, 'Find the bug.') };
}

const contents = (events: AgentEvent[]) =>
  events.map((e) => (e.type === 'message-append' ? e.message.content : undefined));

describe('NextMessage', () => {
  it('sends the prompt as a string, once, stamped with the run', () => {
    const { convo, next } = setup();
    const events = [...next.flush()];
    expect(events).toEqual([
      {
        type: 'message-append',
        message: { role: 'user', content: 'Find the bug.' },
        agentId: 'a-1',
        parentId: 'lead',
        depth: 1,
        at: 7,
      },
    ]);
    expect([...next.flush()]).toEqual([]);
    expect(convo.snapshot()).toEqual([{ role: 'user', content: 'Find the bug.' }]);
  });

  it('sends the prompt before the grace note, as two messages', () => {
    const { next } = setup();
    const events = [...next.addGraceNote('Report now.'), ...next.flush()];
    expect(contents(events)).toEqual(['Find the bug.', 'Report now.']);
  });

  it('puts the grace note in the message of the tool results', () => {
    const { next } = setup();
    expect([...next.flush()]).toHaveLength(1);
    const result = { type: 'tool_result', tool_use_id: 't1', content: 'ok' };
    next.set([result]);
    const events = [...next.addGraceNote('Report now.'), ...next.flush()];
    expect(contents(events)).toEqual([[result, { type: 'text', text: 'Report now.' }]]);
  });

  it('adds a text block after the tool results', () => {
    const { next } = setup();
    expect([...next.flush()]).toHaveLength(1);
    const result = { type: 'tool_result', tool_use_id: 't1', content: 'ok' };
    next.set([result]);
    next.push({ type: 'text', text: 'Continue.' });
    expect(contents([...next.flush()])).toEqual([[result, { type: 'text', text: 'Continue.' }]]);
  });

  it('stamps a run without a parent without a parentId', () => {
    const event = eventStamp({ agentId: 'root', depth: 0 }, () => 1);
    expect(event({ type: 'turn-end', turn: 1, stopReason: 'end_turn' })).toEqual({
      type: 'turn-end',
      turn: 1,
      stopReason: 'end_turn',
      agentId: 'root',
      depth: 0,
      at: 1,
    });
  });
});
