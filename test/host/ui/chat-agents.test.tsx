// The live tree and `/agents` in the Ink app (ink-testing-library): the tree's nesting, cap and
// states as drawn; creating an agent from the template and from a model's draft, editing one in
// $EDITOR (the terminal leaves raw mode and gets it back), deleting one, built-ins protected.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events.js';
import { reduceRows, type AgentRows } from '../../../src/host/ui/agent-rows.js';
import { AgentTree } from '../../../src/host/ui/chat/agent-tree.js';
import { runEditor } from '../../../src/host/ui/chat/editor.js';
import { textReply } from '../../support/fake-anthropic.js';
import { startChat, type ChatHarness } from './chat-harness.js';

let chat: ChatHarness | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const ENTER = '\r';
const ESC = '\x1b';
const DOWN = '\x1b[B';

function started(agentId: string, parentId: string | undefined, at: number): AgentEvent {
  return {
    type: 'agent-start',
    agentId,
    ...(parentId ? { parentId } : {}),
    depth: parentId ? 1 : 0,
    at,
    agentType: 'x',
    model: 'm',
    description: `task of ${agentId}`,
    prompt: 'p',
  };
}

describe('the agent tree', () => {
  it('nests children with tree lines, shows each state, caps the rows and counts who waits for you', () => {
    const events: AgentEvent[] = [started('lead', undefined, 0)];
    for (let i = 0; i < 9; i++) events.push(started(`child-${i}`, 'lead', i + 1));
    events.push(
      {
        type: 'tool-call',
        agentId: 'child-0',
        depth: 1,
        at: 20,
        toolUseId: 'a',
        name: 'Grep',
        input: { pattern: 'TODO' },
      },
      {
        type: 'approval-request',
        agentId: 'child-1',
        depth: 1,
        at: 21,
        requestId: 'r',
        capability: 'exec.run',
        summary: 'run: ls',
      },
    );
    const rows = events.reduce(reduceRows, {} as AgentRows);
    const { lastFrame, unmount } = render(<AgentTree rows={rows} now={5000} width={90} maxRows={4} />);
    const frame = lastFrame() ?? '';
    unmount();
    const lines = frame.split('\n').filter((l) => l.trim() !== '');
    expect(lines[0]).toMatch(/^\u25cc lead \u00b7 task of lead .*waiting on subagents/);
    expect(lines[1]).toMatch(/^\u251c\u2500 \u25cf child-0 .*Grep TODO/);
    expect(lines[2]).toMatch(/^\u251c\u2500 \? child-1 .*needs approval/);
    expect(lines[3]).toMatch(/^\u251c\u2500 \u25cf child-2 .*thinking/);
    expect(lines[4]).toBe('\u2193 6 more');
    expect(lines[5]).toBe('1 agent waiting for you');
  });
});

describe('/agents', () => {
  it('creates an agent from the template, reviewed and checked, and saves it to the project', async () => {
    chat = await startChat({ lead: () => textReply('ok') }, { lead: { tools: ['Read'] } }, { agent: 'lead' });
    await chat.type('/agents');
    await chat.press(ENTER);
    const list = await chat.waitFor(/\/agents \(\d+\)/);
    expect(list).toMatch(/general-purpose +builtin +\/.*agents\/general-purpose\.md/);
    expect(list).toMatch(/lead +cli/);
    await chat.press('c');
    await chat.waitFor(/Name \(lowercase words joined by hyphens\)/);
    await chat.type('Bad Name');
    await chat.press(ENTER);
    await chat.waitFor(/a name is lowercase words joined by hyphens/);
    for (let i = 0; i < 8; i++) await chat.press('\x7f');
    await chat.type('test-helper');
    await chat.press(ENTER);
    const review = await chat.waitFor(/review test-helper/);
    expect(review).toMatch(/name: test-helper/);
    expect(review).toMatch(/valid/);
    await chat.press('p');
    const saved = await chat.waitFor(/saved .*test-helper\.md/);
    expect(saved).toMatch(/test-helper +project/);
    const file = path.join(chat.harness.dir, '.cadre', 'agents', 'test-helper.md');
    expect(await readFile(file, 'utf8')).toMatch(/^---\nname: test-helper\n/);
    expect(chat.harness.runtime.registry.agents.map((a) => a.name)).toContain('test-helper');
  });

  it('drafts an agent with the model, refuses an invalid draft, and saves a valid one for the user', async () => {
    let reply = 'I cannot help with that.';
    chat = await startChat(
      {
        lead: () => textReply(reply),
      },
      { lead: { tools: ['Read'] } },
      { agent: 'lead' },
    );
    await chat.type('/agents');
    await chat.press(ENTER);
    await chat.waitFor(/\/agents \(\d+\)/);
    await chat.press('g');
    await chat.waitFor(/Describe the agent in one line/);
    await chat.type('reviews SQL migrations');
    await chat.press(ENTER);
    await chat.waitFor(/the reply held no agent file/);
    reply =
      'Here it is:\n```markdown\n---\nname: sql-reviewer\ndescription: Reviews SQL migrations for locking and data loss\ntools: Read, Grep, Glob\nmodel: sonnet\n---\nYou review SQL migrations.\n```\n';
    await chat.press('g');
    await chat.type('reviews SQL migrations');
    await chat.press(ENTER);
    const review = await chat.waitFor(/review sql-reviewer/);
    expect(review).toMatch(/valid/);
    // The draft was asked of the main agent, read-only.
    const draftRequest = chat.harness.server.requests.at(-1);
    expect(JSON.stringify(draftRequest?.body.messages[0])).toMatch(/reviews SQL migrations/);
    expect(draftRequest?.body.tools?.map((t) => t.name)).not.toContain('Write');
    await chat.press('u');
    await chat.waitFor(/saved .*sql-reviewer\.md/);
    const file = path.join(chat.harness.dir, '..', 'home', '.cadre', 'agents', 'sql-reviewer.md');
    expect(await readFile(file, 'utf8')).toMatch(/description: Reviews SQL migrations/);
  });

  it('edits an agent in $EDITOR, leaving raw mode while it runs, then reloads it; deletes it; built-ins are protected', async () => {
    const rawModes: boolean[] = [];
    const terminal = { setRawMode: (mode: boolean) => rawModes.push(mode) };
    // The "editor" changes the model the way a person would, then exits.
    const env = { ...process.env, EDITOR: "sed -i 's/^model: haiku$/model: opus/'" };
    chat = await startChat(
      { lead: () => textReply('ok') },
      { lead: { tools: ['Read'] } },
      {
        agent: 'lead',
        files: {
          'README.md': '# p\n',
          '.cadre/agents/aaa-notes.md':
            '---\nname: aaa-notes\ndescription: Takes notes\ntools: Read\nmodel: haiku\n---\nYou take notes.\n',
        },
        editFile: async (file) => {
          await runEditor(file, terminal, env);
        },
      },
    );
    await chat.type('/agents');
    await chat.press(ENTER);
    await chat.waitFor(/\u276f aaa-notes +project/);
    await chat.press('e');
    const edited = await chat.waitFor(/edited .*aaa-notes\.md/);
    expect(edited).not.toMatch(/error:/);
    expect(rawModes).toEqual([false, true]);
    const file = path.join(chat.harness.dir, '.cadre', 'agents', 'aaa-notes.md');
    expect(await readFile(file, 'utf8')).toMatch(/model: opus/);
    expect(chat.harness.runtime.registry.agents.find((a) => a.name === 'aaa-notes')?.model).toBe('opus');
    await chat.press('d');
    await chat.waitFor(/Delete aaa-notes/);
    await chat.press('y');
    await chat.waitFor(/deleted .*aaa-notes\.md/);
    await expect(stat(file)).rejects.toThrow();
    expect(chat.harness.runtime.registry.agents.some((a) => a.name === 'aaa-notes')).toBe(false);
    // The first row is now a built-in: it cannot be deleted or edited here.
    await chat.waitFor(/\u276f bash +builtin/);
    await chat.press('d');
    await chat.waitFor(
      /bash is built in and cannot be deleted; define an agent with the same name to replace it/,
    );
    await chat.press(DOWN);
    expect(chat.app.lastFrame()).not.toMatch(/message, @agent task, or \/help/);
    await chat.press(ESC);
    // The redraw, not 50 ms: a loaded machine can take longer to render the prompt again.
    await chat.waitFor(/message, @agent task, or \/help/);
  });
});
