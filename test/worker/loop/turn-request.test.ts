// The request of a turn: the run's tools, and in the grace turn either tool_choice none (when tool
// blocks are already in the conversation, which the API requires definitions for) or no tools.
import { describe, expect, it } from 'vitest';
import { Conversation } from '../../../src/worker/loop/conversation.js';
import { turnRequest, type RequestTools } from '../../../src/worker/loop/turn-request.js';
import { def, makeSpec } from '../models/loop-support.js';

const spec = makeSpec({ system: 'Be brief.' });
const search = { type: 'web_search_20250305', name: 'web_search' };
const withTools: RequestTools = { definitions: [def('Read')], serverTools: [search] };

function convo(toolBlocks: boolean): Conversation {
  const c = new Conversation([{ role: 'user', content: 'hi' }], 1_000_000);
  if (toolBlocks)
    c.append({ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Read', input: {} }] });
  return c;
}

describe('turnRequest', () => {
  it('offers the tools and server tools with the conversation so far', () => {
    const c = convo(false);
    const request = turnRequest(spec, withTools, c, false);
    expect(request).toEqual({
      model: spec.model.model,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hi' }],
      tools: withTools.definitions,
      serverTools: [search],
      maxTokens: spec.model.maxTokens,
    });
    c.append({ role: 'assistant', content: 'later' });
    expect(request.messages).toHaveLength(1);
    expect(turnRequest(spec, { definitions: [], serverTools: [] }, c, false)).not.toHaveProperty(
      'serverTools',
    );
  });

  it('keeps the tools but forbids their use in a grace turn after tool blocks', () => {
    const request = turnRequest(spec, withTools, convo(true), true);
    expect(request.toolChoice).toBe('none');
    expect(request.tools).toEqual(withTools.definitions);
    expect(request.serverTools).toEqual([search]);
  });

  it('drops every tool in a grace turn before any tool block, or when none are offered', () => {
    for (const request of [
      turnRequest(spec, withTools, convo(false), true),
      turnRequest(spec, { definitions: [] }, convo(true), true),
    ]) {
      expect(request.tools).toEqual([]);
      expect(request).not.toHaveProperty('serverTools');
      expect(request).not.toHaveProperty('toolChoice');
    }
  });
});
