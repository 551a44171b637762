// The chat's reducer, store and input parsing without Ink.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events.js';
import { emptyUsage, type TaskOutput } from '../../../src/shared/task.js';
import { parseChatInput } from '../../../src/host/ui/chat-input.js';
import {
  chatReducer,
  initialChat,
  type ChatAction,
  type ChatState,
} from '../../../src/host/ui/chat-state.js';
import { ChatStore } from '../../../src/host/ui/chat-store.js';

const base = { depth: 0, at: 1 };
const ev = (event: Record<string, unknown>): ChatAction => ({
  type: 'event',
  event: { ...base, ...event } as AgentEvent,
});
const output = (over: Partial<TaskOutput> = {}): TaskOutput => ({
  agentId: 'main-1',
  agentType: 'main',
  status: 'completed',
  result: 'done',
  usage: emptyUsage(),
  model: 'm',
  durationMs: 1,
  turns: 1,
  toolCalls: 0,
  transcriptPath: '/t/main-1.jsonl',
  ...over,
});
const fold = (actions: ChatAction[], from: ChatState = initialChat()) => actions.reduce(chatReducer, from);

describe('chatReducer', () => {
  it("streams the main agent's text, moves it to the scrollback before its tool lines, and ends the turn", () => {
    const state = fold([
      { type: 'turn-start', prompt: 'fix it' },
      ev({
        type: 'agent-start',
        agentId: 'main-1',
        agentType: 'main',
        model: 'm',
        description: 'd',
        prompt: 'fix it',
      }),
      { type: 'main', agentId: 'main-1' },
      ev({ type: 'text-delta', agentId: 'main-1', text: 'Looking ' }),
      ev({ type: 'text-delta', agentId: 'main-1', text: 'now.' }),
      ev({
        type: 'tool-call',
        agentId: 'main-1',
        toolUseId: 't1',
        name: 'Bash',
        input: { command: 'npm test' },
      }),
      // The host reports the refusal before the tool result reaches the model.
      ev({
        type: 'effect-refused',
        agentId: 'main-1',
        capability: 'exec.run',
        summary: 'npm test',
        code: 'approval_denied',
        reason: 'the user denied this call',
      }),
      ev({
        type: 'tool-result',
        agentId: 'main-1',
        toolUseId: 't1',
        name: 'Bash',
        isError: true,
        content: 'approval_denied: the user denied this call',
        durationMs: 1,
      }),
      ev({
        type: 'tool-call',
        agentId: 'main-1',
        toolUseId: 't2',
        name: 'Task',
        input: { subagent_type: 'explore', description: 'look' },
      }),
      ev({
        type: 'tool-result',
        agentId: 'main-1',
        toolUseId: 't2',
        name: 'Task',
        isError: false,
        content: 'agentId: explore-1\nstatus: completed\nusage: x',
        durationMs: 1,
      }),
      ev({ type: 'text-delta', agentId: 'main-1', text: 'All set.' }),
    ]);
    expect(state.live).toBe('All set.');
    expect(state.running).toBe(true);
    expect(state.items.map((i) => [i.kind, i.text])).toEqual([
      ['user', 'fix it'],
      ['assistant', 'Looking now.'],
      ['tool', 'Bash(npm test) \u2192 refused'],
      ['tool', 'Task(explore: look) \u2192 status: completed'],
    ]);
    const ended = chatReducer(state, { type: 'turn-end', output: output() });
    expect(ended.running).toBe(false);
    expect(ended.live).toBe('');
    expect(ended.items.at(-1)).toMatchObject({ kind: 'assistant', text: 'All set.' });
    expect(
      chatReducer(state, { type: 'turn-end', output: output({ status: 'cancelled' }) }).items.at(-1),
    ).toMatchObject({ kind: 'notice', text: 'interrupted' });
    expect(
      chatReducer(state, {
        type: 'turn-end',
        output: output({ status: 'timeout', error: { code: 'timeout', message: 'too slow' } }),
      }).items.at(-1),
    ).toMatchObject({ kind: 'error', text: 'the turn ended timeout: too slow' });
  });

  it("adds an @mention run's report when it ends, but not a subagent's, nor a quiet run's", () => {
    const state = fold([
      { type: 'main', agentId: 'main-1' },
      ev({
        type: 'agent-end',
        agentId: 'explore-9',
        output: output({ agentId: 'explore-9', agentType: 'explore', result: 'found it' }),
      }),
      ev({
        type: 'agent-end',
        agentId: 'bash-2',
        depth: 1,
        parentId: 'main-1',
        output: output({ agentId: 'bash-2', agentType: 'bash', result: 'child' }),
      }),
      { type: 'quiet', agentId: 'main-7' },
      ev({ type: 'agent-end', agentId: 'main-7', output: output({ agentId: 'main-7', result: 'draft' }) }),
    ]);
    expect(state.items.map((i) => [i.kind, i.title, i.text])).toEqual([['agent', '@explore', 'found it']]);
  });

  it('says who answered an approval and what it was, once per distinct notice', () => {
    const state = fold([
      ev({
        type: 'approval-request',
        agentId: 'w-1',
        requestId: 'r1',
        capability: 'exec.run',
        summary: 'run: make',
      }),
      ev({
        type: 'approval-result',
        agentId: 'w-1',
        requestId: 'r1',
        decision: 'deny',
        reason: 'no',
        decidedBy: 'user',
      }),
      ev({
        type: 'approval-request',
        agentId: 'w-2',
        requestId: 'r2',
        capability: 'exec.run',
        summary: 'run: ls',
      }),
      ev({
        type: 'approval-result',
        agentId: 'w-2',
        requestId: 'r2',
        decision: 'deny',
        reason: 'no',
        decidedBy: 'non-interactive',
      }),
      ev({ type: 'notice', agentId: 'main-1', level: 'warn', message: 'offline model' }),
      ev({ type: 'notice', agentId: 'main-1', level: 'warn', message: 'offline model' }),
    ]);
    expect(state.items.map((i) => i.text)).toEqual(['denied by you: w-1 run: make', 'offline model']);
    expect(state.asks).toEqual({});
  });

  it("shows a call the host refused with the progress lines' words and the rule that allows it", () => {
    const state = fold([
      { type: 'main', agentId: 'main-1' },
      ev({
        type: 'effect-refused',
        agentId: 'w-1',
        depth: 1,
        parentId: 'main-1',
        capability: 'fs.write',
        summary: 'out.txt (4 chars)',
        code: 'permission_denied',
        reason: 'fs.write was not run: it needs approval. More text.',
        allow: ['Edit(out.txt)'],
      }),
      // A person's own denial is already told by its approval line.
      ev({
        type: 'effect-refused',
        agentId: 'w-1',
        capability: 'exec.run',
        summary: 'make',
        code: 'approval_denied',
        reason: 'no',
      }),
    ]);
    expect(state.items.map((i) => [i.kind, i.text])).toEqual([
      [
        'refused',
        'w-1 out.txt (4 chars) \u2014 fs.write was not run: it needs approval. Allow it with "Edit(out.txt)".',
      ],
    ]);
  });

  it('queues messages typed while a turn runs', () => {
    const state = fold([{ type: 'queue', prompt: 'a' }, { type: 'queue', prompt: 'b' }, { type: 'dequeue' }]);
    expect(state.queued).toEqual(['b']);
  });
});

describe('ChatStore', () => {
  it('folds a burst of actions into one notification, and an urgent one at once', async () => {
    const store = new ChatStore(initialChat(), { intervalMs: 30 });
    let notified = 0;
    store.subscribe(() => notified++);
    for (let i = 0; i < 500; i++) store.dispatch(ev({ type: 'text-delta', agentId: 'x', text: 'a' }));
    expect(notified).toBe(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(notified).toBe(1);
    store.dispatch({ type: 'item', kind: 'info', text: 'now' }, true);
    expect(notified).toBe(2);
    expect(store.getState().items.at(-1)?.text).toBe('now');
    store.close();
  });
});

describe('parseChatInput', () => {
  const agents = ['explore', 'code-reviewer'];
  it('tells slash commands, mentions and prompts apart, with clear errors', () => {
    expect(parseChatInput('/agents', agents)).toEqual({ kind: 'slash', command: 'agents', args: '' });
    expect(parseChatInput('/EXIT now', agents)).toEqual({ kind: 'slash', command: 'exit', args: 'now' });
    expect(parseChatInput('/nope', agents)).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/unknown command "\/nope"; the commands are \/agents/),
    });
    expect(parseChatInput('@explore where is retry?\nand why', agents)).toEqual({
      kind: 'mention',
      agent: 'explore',
      task: 'where is retry?\nand why',
    });
    expect(parseChatInput('@explore', agents)).toMatchObject({
      kind: 'error',
      message: "@explore: write the task after the agent's name",
    });
    expect(parseChatInput('@ghost', agents)).toMatchObject({
      kind: 'error',
      message: 'no agent named "ghost" (type @ to list them)',
    });
    expect(parseChatInput('@team please look', agents)).toEqual({
      kind: 'prompt',
      text: '@team please look',
    });
    expect(parseChatInput('  fix the bug  ', agents)).toEqual({ kind: 'prompt', text: 'fix the bug' });
  });
});
