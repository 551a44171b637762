// The chat session without Ink: turns that continue one conversation, messages queued behind a
// running turn, --resume from the sessions index, and closing with an approval pending.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatController } from '../../../src/host/chat/controller.js';
import { lastSession, sessionsIndexPath } from '../../../src/host/chat/sessions-index.js';
import { ApprovalQueue } from '../../../src/host/ui/approval-queue.js';
import { textReply, toolUseReply, type RecordedRequest } from '../../support/fake-anthropic.js';
import { until } from '../../support/until.js';
import { startHarness, type Harness } from '../agents/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lastPrompt = (req: RecordedRequest) => String(req.body.messages.at(-1)?.content ?? '');

async function idle(controller: ChatController): Promise<void> {
  for (let i = 0; i < 500; i++) {
    controller.store.flush();
    const s = controller.store.getState();
    if (!s.running && s.queued.length === 0) return;
    await sleep(20);
  }
  throw new Error('the chat never went idle');
}

function chat(harness: Harness, resume?: Awaited<ReturnType<typeof lastSession>>) {
  const queue = new ApprovalQueue();
  queue.attach(harness.runtime.approvals);
  return new ChatController({
    runtime: harness.runtime,
    queue,
    agent: 'lead',
    home: path.join(harness.dir, '..', 'home'),
    ...(resume ? { resume } : {}),
  });
}

describe('ChatController', () => {
  it('continues one conversation turn after turn, queues what is typed meanwhile, and resumes it later', async () => {
    h = await startHarness(
      {
        lead: ({ req }) =>
          textReply(`echo: ${lastPrompt(req)}`, { latencyMs: lastPrompt(req) === 'first' ? 400 : 0 }),
      },
      { lead: { tools: ['Read'] } },
    );
    const one = chat(h);
    one.send('first');
    one.send('second');
    one.store.flush();
    expect(one.store.getState().queued).toEqual(['second']);
    await idle(one);
    const texts = one.store.getState().items.map((i) => `${i.kind}:${i.text}`);
    expect(texts).toEqual(
      expect.arrayContaining([
        'user:first',
        'assistant:echo: first',
        'user:second',
        'assistant:echo: second',
      ]),
    );
    // The second turn resumed the first: one agent, one transcript, the whole conversation sent.
    const second = h.server.requests.at(-1)!;
    expect(second.body.messages.map((m) => m.content)).toEqual([
      'first',
      [{ type: 'text', text: 'echo: first' }],
      'second',
    ]);
    const transcript = one.transcriptPath();
    expect(transcript).toMatch(/lead-[0-9a-f]{8}\.jsonl$/);
    one.close();

    const record = await lastSession(sessionsIndexPath(h.runtime.records.dir), 'lead');
    expect(record).toMatchObject({ agentType: 'lead', transcriptPath: transcript });
    expect(await lastSession(sessionsIndexPath(h.runtime.records.dir), 'other')).toBeUndefined();
    const two = chat(h, record);
    await two.showResumed();
    expect(two.store.getState().items.map((i) => i.text)).toEqual([
      'first',
      'echo: first',
      'second',
      'echo: second',
      expect.stringMatching(/^resumed lead-[0-9a-f]{8} \(4 messages\)/),
    ]);
    two.send('third');
    await idle(two);
    expect(h.server.requests.at(-1)!.body.messages).toHaveLength(5);
    expect(two.transcriptPath()).toBe(transcript);
    two.close();
  });

  it('closing denies a pending approval, recorded as closed', async () => {
    h = await startHarness(
      {
        lead: ({ turn }) =>
          turn === 0 ? toolUseReply([{ name: 'Bash', input: { command: 'touch x' } }]) : textReply('done'),
      },
      { lead: { tools: ['Bash'] } },
      { approvals: new ApprovalQueue() },
    );
    const c = chat(h);
    c.send('go');
    const { runtime } = h;
    await until(() => runtime.approvals.pending().length > 0, 'the Bash call to ask');
    expect(runtime.approvals.pending()).toHaveLength(1);
    c.close();
    await until(() => runtime.stats().runs === 0, 'the run to end once the chat closed');
    await h.runtime.close();
    const { readFile } = await import('node:fs/promises');
    const audit = (await readFile(h.runtime.records.auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.capability === 'exec.run');
    expect(audit).toEqual([
      expect.objectContaining({ decision: 'ask', approval: 'deny', decidedBy: 'closed' }),
    ]);
  });
});
