// `{{task}}` in an agent's prompt: the task goes into the system prompt instead of the first user
// message, checked on what the real SDK sends to the fake Messages API.
import { afterEach, describe, expect, it } from 'vitest';
import { TASK_IN_PROMPT_MESSAGE } from '../../../src/shared/agent-definition.js';
import { systemText, textReply, type RecordedRequest } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TASK = 'count the zebras in src/';

/** Every text the request's messages carry, in order. */
function messageTexts(req: RecordedRequest): string[] {
  return req.body.messages.flatMap((m) =>
    typeof m.content === 'string'
      ? [m.content]
      : m.content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])),
  );
}

describe('{{task}} in the prompt', () => {
  it('puts the task in the system prompt once and not in the first user message', async () => {
    h = await startHarness(
      { tmpl: () => textReply('done'), plain: () => textReply('done') },
      {
        tmpl: { prompt: '[tmpl] Your task is: {{task}}. Report briefly.' },
        plain: { prompt: '[plain] You report briefly.' },
      },
    );
    const templated = await h.runtime.run({ subagent_type: 'tmpl', prompt: TASK });
    expect(templated.status).toBe('completed');
    const plain = await h.runtime.run({ subagent_type: 'plain', prompt: TASK });
    expect(plain.status).toBe('completed');

    const [first, second] = h.server.requests;
    if (!first || !second) throw new Error('expected two model requests');
    expect(systemText(first.body)).toContain(`Your task is: ${TASK}. Report briefly.`);
    expect(systemText(first.body)).not.toContain('{{task}}');
    expect(messageTexts(first)).toEqual([TASK_IN_PROMPT_MESSAGE]);
    // The whole request holds the task exactly once.
    expect(JSON.stringify(first.body).split(TASK).length - 1).toBe(1);

    // Without the placeholder the task is the first user message, and the prompt is left alone.
    expect(systemText(second.body)).not.toContain(TASK);
    expect(messageTexts(second)).toEqual([TASK]);
  });

  it('a resumed run gets its new prompt as a message', async () => {
    h = await startHarness({ tmpl: () => textReply('done') }, { tmpl: { prompt: '[tmpl] Task: {{task}}' } });
    const first = await h.runtime.run({ subagent_type: 'tmpl', prompt: TASK });
    expect(first.status).toBe('completed');
    const again = await h.runtime.run({
      subagent_type: 'tmpl',
      prompt: 'now count the lions',
      resume: first.agentId,
    });
    expect(again.status).toBe('completed');
    const last = h.server.requests.at(-1);
    if (!last) throw new Error('expected a request');
    expect(messageTexts(last).at(-1)).toBe('now count the lions');
    expect(messageTexts(last)[0]).toBe(TASK_IN_PROMPT_MESSAGE);
  });
});
