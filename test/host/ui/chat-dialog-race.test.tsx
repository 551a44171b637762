// A prompt that appears while the person is in a dialog of their own (/tasks here; a cancel to
// confirm works the same way): the keys stay with the dialog, so a "y" meant for it never answers
// the prompt, and the prompt takes keys only once the dialog is closed and its grace has passed.
// The chat's Ink app with ink-testing-library, over the real runtime and the fake Messages API.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { startChat, type ChatHarness } from './chat-harness.js';

let chat: ChatHarness | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GRACE = 300;

describe('a prompt that appears while a dialog is open', () => {
  it('does not take the dialog\'s keys: "y" in /tasks answers nothing, the prompt waits for Esc', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    chat = await startChat(
      {
        lead: async ({ turn }) => {
          if (turn > 0) return textReply('lead done');
          // The ask is held back until the person has opened /tasks.
          await gate;
          return toolUseReply([{ name: 'Bash', input: { command: 'touch dialog-race.txt' } }]);
        },
      },
      { lead: { tools: ['Bash'], description: 'Leads the work' } },
      { agent: 'lead', graceMs: GRACE },
    );
    await chat.type('go');
    await chat.press('\r');
    await chat.type('/tasks');
    await chat.press('\r');
    await chat.waitFor(/\/tasks/);
    release();
    await chat.waitFor(/wants to run Bash \(1 of 1\)/);
    expect(await chat.waitFor(/the prompt takes keys once \/tasks is closed/)).toBeTruthy();
    await sleep(GRACE * 2);
    // Meant for the dialog, long past the prompt's grace.
    await chat.press('y');
    await sleep(GRACE);
    expect(chat.app.lastFrame()).toMatch(/wants to run Bash \(1 of 1\)/);
    expect(existsSync(path.join(chat.harness.dir, 'dialog-race.txt'))).toBe(false);
    // Closing the dialog starts the grace again; then the prompt answers.
    await chat.press('\x1b');
    await chat.press('n');
    await sleep(50);
    expect(chat.app.lastFrame()).toMatch(/wants to run Bash \(1 of 1\)/);
    await sleep(GRACE + 100);
    await chat.press('n');
    await chat.waitFor(/lead done/);
    expect(existsSync(path.join(chat.harness.dir, 'dialog-race.txt'))).toBe(false);
  });
});
