// The chat's Ink app with ink-testing-library, driven by keys, over the real runtime and the fake
// Messages API: the composer's @ picker, the approval queue (three parallel asks, the key grace, an
// "always" that answers the asks it covers, a denial the model reads as a denial) and Esc.
import { afterEach, describe, expect, it } from 'vitest';
import { KEY_GRACE_MS } from '../../../src/host/ui/approval-queue.js';
import { textReply, toolResults, toolUseReply } from '../../support/fake-anthropic.js';
import { startChat, type ChatHarness } from './chat-harness.js';

let chat: ChatHarness | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ENTER = '\r';
const ESC = '\x1b';
const TAB = '\t';
const GRACE = 1500;

/** A lead that starts one worker per command; each worker runs its command with Bash. */
function fanOut(commands: string[]) {
  return {
    lead: ({ turn, results }: { turn: number; results: ReturnType<typeof toolResults> }) =>
      turn === 0
        ? toolUseReply(
            commands.map((command, i) => ({
              name: 'Task',
              input: { description: `job ${i}`, prompt: command, subagent_type: 'worker' },
            })),
          )
        : textReply(`lead saw ${results.length} reports`),
    worker: ({
      turn,
      req,
      results,
    }: {
      turn: number;
      req: { body: { messages: { content: unknown }[] } };
      results: ReturnType<typeof toolResults>;
    }) => {
      const command = String(req.body.messages[0]?.content ?? 'true');
      return turn === 0
        ? toolUseReply([{ name: 'Bash', input: { command } }])
        : textReply(`worker got: ${JSON.stringify(results[0]?.content ?? '')}`);
    },
  };
}

const defs = {
  lead: { tools: ['Task'], description: 'Leads the work' },
  worker: { tools: ['Bash'], description: 'Runs one command' },
  explorer: { tools: ['Read'], description: 'Finds things in the code' },
};

describe('the composer', () => {
  it('lists agents with their descriptions when @ is typed, filters as you type, and Tab completes', async () => {
    chat = await startChat(
      { lead: () => textReply('hi'), explorer: () => textReply('found it in src/retry.ts') },
      defs,
      { agent: 'lead' },
    );
    await chat.waitFor(/message, @agent task, or \/help/);
    await chat.type('@');
    const all = await chat.waitFor(/@explorer/);
    expect(all).toMatch(/@explorer {2}Finds things in the code/);
    expect(all).toMatch(/@lead {2}Leads the work/);
    expect(all).toMatch(/\u2193 \d+ more: type to filter/);
    await chat.type('ex');
    const filtered = await chat.waitFor(/\u276f @ex /);
    expect(filtered).toMatch(/\u276f @explore {2}Fast read-only/);
    expect(filtered).toMatch(/ {4}@explorer {2}Finds things/);
    expect(filtered).not.toMatch(/@worker|@lead/);
    // Down moves the highlight; Tab takes it.
    await chat.press('\x1b[B');
    await chat.waitFor(/\u276f @explorer {2}Finds things/);
    await chat.press(TAB);
    await chat.type('where is retry?');
    expect(await chat.waitFor(/@explorer where is retry\?/)).not.toMatch(/Finds things/);
    await chat.press(ENTER);
    // @name task runs that agent directly; its report comes back into the chat.
    const done = await chat.waitFor(/found it in src\/retry\.ts/);
    expect(done).toMatch(/@explorer\n/);
    expect(chat.harness.server.requests.some((r) => JSON.stringify(r.body.system).includes('[lead]'))).toBe(
      false,
    );
  });

  it('sends on Enter, keeps history on Up, and continues a line ending in a backslash', async () => {
    chat = await startChat({ lead: () => textReply('answer one') }, defs, { agent: 'lead' });
    await chat.type('first line\\');
    await chat.press(ENTER);
    await chat.type('second line');
    await chat.press(ENTER);
    await chat.waitFor(/answer one/);
    const first = chat.harness.server.requests[0]?.body.messages[0]?.content;
    expect(first).toBe('first line\nsecond line');
    await chat.press('\x1b[A');
    expect(await chat.waitFor(/\u276f first line/)).toMatch(/second line/);
  });
});

describe('the approval queue', () => {
  it('shows three parallel asks one at a time, ignores keys in the grace, and "a" answers the asks it covers', async () => {
    // A long grace: on a loaded machine the frame check and the key can be far apart. The shipped
    // 300 ms is checked with a hand-moved clock in approval-queue.test.ts.
    chat = await startChat(fanOut(['touch a.txt', 'make build', 'touch b.txt']), defs, {
      agent: 'lead',
      graceMs: GRACE,
    });
    await chat.type('go');
    await chat.press(ENTER);
    // A key typed as a prompt appears (its keys still marked "wait") answers nothing.
    const fresh = await chat.waitFor(/wants to run Bash \(1 of \d\)[\s\S]*\(wait\)/);
    const head = /\$ (touch a\.txt|make build|touch b\.txt)/.exec(fresh)?.[1];
    await chat.press('y');
    const first = await chat.waitFor(/wants to run Bash \(1 of 3\)/);
    expect(/\$ (touch a\.txt|make build|touch b\.txt)/.exec(first)?.[1]).toBe(head);
    expect(first).toMatch(/lead \u203a worker-[0-9a-f]{8} wants to run Bash \(1 of 3\)/);
    expect(first).toMatch(/why: running ".*" needs approval in default mode/);
    await chat.waitFor(/3 agents waiting for you/);
    const shown = head;
    await sleep(GRACE + 50);
    if (shown === 'make build') {
      await chat.press('y');
      await chat.waitFor(/\(1 of 2\)/);
      await sleep(GRACE + 50);
    }
    // "a" on a touch: it is allowed for the session, and the other touch is answered with it.
    expect(chat.app.lastFrame()).toMatch(/\[a\] always this session: Bash\(touch:\*\)/);
    await chat.press('a');
    const rest = await chat.waitFor(/lead saw 3 reports|\$ make build/);
    if (/\$ make build/.test(rest)) {
      expect(rest).toMatch(/\(1 of 1\)/);
      await sleep(GRACE + 50);
      await chat.press('y');
    }
    const end = await chat.waitFor(/lead saw 3 reports/);
    expect(end).toMatch(/allowed by a rule you allowed this session: worker-[0-9a-f]{8} run: touch/);
    expect(chat.harness.runtime.approvals.sessionRules()).toEqual(['Bash(touch:*)']);
    // /permissions shows the mode, the rules in force and what was allowed for the session.
    await chat.type('/permissions');
    await chat.press(ENTER);
    const permissions = await chat.waitFor(/allowed for this session:/);
    expect(permissions).toMatch(/mode: default/);
    expect(permissions).toMatch(/allowed for this session:\n {2}Bash\(touch:\*\)/);
  });

  it('n denies the call only, and the model is told it was denied and why', async () => {
    chat = await startChat(fanOut(['rm -rf build']), defs, { agent: 'lead' });
    await chat.type('clean up');
    await chat.press(ENTER);
    await chat.waitFor(/wants to run Bash \(1 of 1\)/);
    await sleep(KEY_GRACE_MS + 50);
    await chat.press('n');
    const end = await chat.waitFor(/lead saw 1 reports/);
    expect(end).toMatch(/denied by you: worker-[0-9a-f]{8} run: rm -rf build/);
    const workerFollowUp = chat.harness.server.requests.find(
      (r) => JSON.stringify(r.body.system).includes('[worker]') && toolResults(r.body).length > 0,
    );
    const result = toolResults(workerFollowUp!.body)[0];
    expect(result?.is_error).toBe(true);
    expect(String(result?.content)).toMatch(
      /^approval_denied: the user denied this call \(run: rm -rf build\)\. Do not retry it/,
    );
  });

  it('Esc on the prompt denies; Esc otherwise interrupts the main turn only', async () => {
    chat = await startChat(
      {
        ...fanOut(['touch x']),
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply([
                { name: 'Task', input: { description: 'slow', prompt: 'touch x', subagent_type: 'worker' } },
              ])
            : textReply('late', { latencyMs: 30_000 }),
      },
      defs,
      { agent: 'lead' },
    );
    await chat.type('go');
    await chat.press(ENTER);
    await chat.waitFor(/wants to run Bash/);
    await sleep(KEY_GRACE_MS + 50);
    await chat.press(ESC);
    await chat.waitFor(/denied by you/);
    await chat.waitFor(/working \(Esc interrupts\)/);
    await sleep(200);
    await chat.press(ESC);
    const end = await chat.waitFor(/interrupted/);
    expect(end).toMatch(/idle/);
  });
});

describe('/tasks, /help and /exit', () => {
  it('lists a background run with its status and output, stops one, and /exit leaves', async () => {
    chat = await startChat(
      {
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply([
                {
                  name: 'Task',
                  input: {
                    description: 'quick bg',
                    prompt: 'quick',
                    subagent_type: 'explorer',
                    run_in_background: true,
                  },
                },
                {
                  name: 'Task',
                  input: {
                    description: 'slow bg',
                    prompt: 'slow',
                    subagent_type: 'worker',
                    run_in_background: true,
                  },
                },
              ])
            : textReply('started two'),
        explorer: () => textReply('the quick report'),
        worker: () => textReply('never', { latencyMs: 30_000 }),
      },
      { ...defs, lead: { tools: ['Task', 'TaskOutput', 'TaskStop'] } },
      { agent: 'lead' },
    );
    await chat.type('go');
    await chat.press(ENTER);
    await chat.waitFor(/started two/);
    await chat.type('/tasks');
    await chat.press(ENTER);
    const list = await chat.waitFor(/\/tasks \(2\)[\s\S]*completed +explorer-/);
    expect(list).toMatch(/running +worker-[0-9a-f]{8} \(background\) \u00b7 slow bg/);
    // s stops the selected run (the two started together: either may be listed first).
    const slowFirst = /\u276f running +worker-/.test(list);
    if (!slowFirst) await chat.press('\x1b[B');
    await chat.press('s');
    await chat.waitFor(/stopping worker-/);
    await chat.waitFor(/cancelled +worker-/);
    await chat.press(slowFirst ? '\x1b[B' : '\x1b[A');
    await chat.press(ENTER);
    expect(await chat.waitFor(/\/tasks \u203a explorer-[0-9a-f]{8} \(completed\)/)).toMatch(
      /the quick report/,
    );
    await chat.press(ESC);
    await chat.press(ESC);
    await chat.type('/help');
    await chat.press(ENTER);
    expect(await chat.waitFor(/\/help\n/)).toMatch(/@name task +run that agent directly/);
    expect(chat.exited()).toBe(false);
    await chat.type('/exit');
    await chat.press(ENTER);
    expect(chat.exited()).toBe(true);
  });
});
