// Approvals end to end: every agent's asks (a subagent's command, a lead's launch of a subagent) go
// through one authorization step that stops the asking run's clock, ends with its cancel signal,
// reports into its transcript and writes who decided into the audit log.
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { callbackResolver } from '../../../src/host/approvals/resolvers.js';
import type { ApprovalRequest, ResolverAnswer } from '../../../src/host/approvals/types.js';
import type { toolResults } from '../../support/fake-anthropic.js';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { until } from '../../support/until.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function auditLines(harness: Harness): Promise<Record<string, unknown>[]> {
  const text = await readFile(harness.runtime.records.auditLog, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function transcriptEvents(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A lead that starts one `worker` child, which runs `command` with Bash. */
function leadAndWorker(command: string) {
  return {
    lead: ({ turn }: { turn: number }) =>
      turn === 0
        ? toolUseReply([
            {
              name: 'Task',
              input: { description: 'run it', prompt: 'run the command', subagent_type: 'worker' },
            },
          ])
        : textReply('lead done'),
    worker: ({ turn, results }: { turn: number; results: ReturnType<typeof toolResults> }) =>
      turn === 0
        ? toolUseReply([{ name: 'Bash', input: { command } }])
        : textReply(`worker saw: ${JSON.stringify(results[0]?.content ?? '').slice(0, 300)}`),
  };
}

describe('one authorization step for every agent', () => {
  it("a subagent's approval waits with its clock stopped, and is audited and transcribed with who decided", async () => {
    const asked: ApprovalRequest[] = [];
    h = await startHarness(
      leadAndWorker('touch made-by-worker.txt'),
      // The child's timeout (3 s, room for a thread start on a loaded machine) is shorter than
      // the person takes to answer (4 s).
      { lead: { tools: ['Task'] }, worker: { tools: ['Bash'], timeout: 3 } },
      {
        approvals: callbackResolver(async (request) => {
          asked.push(request);
          await sleep(4000);
          return { decision: 'allow', reason: 'fine by me' };
        }),
      },
    );
    const handle = await h.runtime.task({ subagent_type: 'lead', prompt: 'go' });
    const ends: { agentType: string; status: string; transcriptPath: string }[] = [];
    for await (const event of handle.events) if (event.type === 'agent-end') ends.push(event.output);
    expect((await handle.result).status).toBe('completed');
    const worker = ends.find((o) => o.agentType === 'worker');
    expect(worker?.status).toBe('completed');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      agentType: 'worker',
      parentType: 'lead',
      depth: 1,
      capability: 'exec.run',
      action: 'run Bash',
      preview: '$ touch made-by-worker.txt',
      suggestions: ['Bash(touch:*)'],
    });
    expect(asked[0]?.reason).toMatch(/default mode/);
    await h.runtime.close();
    const audit = (await auditLines(h)).filter((l) => l.capability === 'exec.run');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      agentType: 'worker',
      decision: 'ask',
      approval: 'allow',
      decidedBy: 'user',
      ok: true,
    });
    expect(audit[0]?.waitedMs).toBeGreaterThanOrEqual(3900);
    const events = await transcriptEvents(worker?.transcriptPath ?? '');
    const request = events.find((e) => e.type === 'approval-request');
    const result = events.find((e) => e.type === 'approval-result');
    expect(request).toMatchObject({ capability: 'exec.run', summary: 'run: touch made-by-worker.txt' });
    expect(result).toMatchObject({
      requestId: request?.requestId,
      decision: 'allow',
      decidedBy: 'user',
      reason: 'fine by me',
    });
  });

  it("a lead's launch of a subagent that asks is audited, stops the lead's clock, and a denial reaches the model", async () => {
    let answer: ResolverAnswer = { decision: 'deny', reason: 'not that one' };
    const asked: ApprovalRequest[] = [];
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                {
                  name: 'Task',
                  input: { description: 'look', prompt: 'look around', subagent_type: 'worker' },
                },
              ])
            : textReply(`lead saw: ${JSON.stringify(results[0] ?? {}).slice(0, 400)}`),
        worker: () => textReply('worker report'),
      },
      // The lead's timeout (4 s: its own and its child's thread starts and three model calls run on
      // its clock, several times that on a loaded machine) is shorter than the person takes to
      // answer (5 s): the lead completes only if its clock stood still while the person answered.
      { lead: { tools: ['Task'], timeout: 4 }, worker: { tools: ['Read'] } },
      {
        // An ask rule makes the launch ask, whatever the mode.
        files: { '.cadre/config.json': JSON.stringify({ permissions: { ask: ['Task(worker)'] } }) },
        approvals: callbackResolver(async (request) => {
          asked.push(request);
          await sleep(5000);
          return answer;
        }),
      },
    );
    const denied = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(denied.status).toBe('completed');
    expect(denied.result).toMatch(/approval_denied: not that one/);
    expect(denied.result).toMatch(/is_error.*true/);
    answer = { decision: 'allow' };
    const allowed = await h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    expect(allowed.status).toBe('completed');
    expect(allowed.result).toMatch(/worker report/);
    await h.runtime.close();
    expect(asked.map((r) => [r.capability, r.agentType, r.action])).toEqual([
      ['agents.task', 'lead', 'start a worker subagent'],
      ['agents.task', 'lead', 'start a worker subagent'],
    ]);
    const audit = (await auditLines(h)).filter((l) => l.capability === 'agents.task');
    expect(audit.map((l) => [l.decision, l.approval, l.decidedBy, l.ok])).toEqual([
      ['ask', 'deny', 'user', false],
      ['ask', 'allow', 'user', true],
    ]);
    expect(audit[0]).toMatchObject({ errorCode: 'approval_denied', args: { subagent_type: 'worker' } });
  });

  it("a launch the policy refuses is audited as the policy's deny and reported as effect-refused, as a file effect is", async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([
                {
                  name: 'Task',
                  input: { description: 'look', prompt: 'look around', subagent_type: 'worker' },
                },
              ])
            : textReply(`lead saw: ${JSON.stringify(results[0] ?? {}).slice(0, 400)}`),
        worker: () => textReply('worker report'),
      },
      { lead: { tools: ['Task'] }, worker: { tools: ['Read'] } },
      { files: { '.cadre/config.json': JSON.stringify({ permissions: { deny: ['Task(worker)'] } }) } },
    );
    const events: Record<string, unknown>[] = [];
    const handle = await h.runtime.task(
      { subagent_type: 'lead', prompt: 'go' },
      { onEvent: (e) => events.push(e), events: false },
    );
    const out = await handle.result;
    expect(out.status).toBe('completed');
    expect(out.result).toMatch(/permission_denied/);
    expect(events.filter((e) => e.type === 'agent-start').map((e) => e.agentType)).toEqual(['lead']);
    expect(events.filter((e) => e.type === 'effect-refused')).toEqual([
      expect.objectContaining({
        capability: 'agents.task',
        summary: 'launch worker',
        code: 'permission_denied',
      }),
    ]);
    await h.runtime.close();
    const audit = (await auditLines(h)).filter((l) => l.capability === 'agents.task');
    expect(audit).toEqual([
      expect.objectContaining({
        decision: 'deny',
        decidedBy: 'policy',
        rule: 'Task(worker)',
        ok: false,
        errorCode: 'permission_denied',
      }),
    ]);
  });

  it('cancelling a run ends its pending approval as denied by cancellation, and it is audited so', async () => {
    let release: (() => void) | undefined;
    h = await startHarness(
      leadAndWorker('touch never.txt'),
      { lead: { tools: ['Task'] }, worker: { tools: ['Bash'] } },
      {
        approvals: callbackResolver(
          (_request, signal) =>
            new Promise<ResolverAnswer>((resolve) => {
              release = () => resolve({ decision: 'allow' });
              signal.addEventListener('abort', () => resolve({ decision: 'allow' }));
            }),
        ),
      },
    );
    const handle = await h.runtime.task({ subagent_type: 'lead', prompt: 'go' });
    // The request is reported just before it is queued: once it is seen, the ask is pending (a
    // stop timed 100 ms after the Bash call could come before the ask on a loaded machine).
    for await (const event of handle.events) {
      if (event.type === 'approval-request') {
        handle.stop();
        break;
      }
    }
    const out = await handle.result;
    expect(out.status).toBe('cancelled');
    release?.();
    await h.runtime.close();
    const audit = (await auditLines(h)).filter((l) => l.capability === 'exec.run');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ decision: 'ask', approval: 'deny', decidedBy: 'cancelled', ok: false });
  });

  it('"allow for this session" answers the queued requests it covers, judged by the policy', async () => {
    const asked: ApprovalRequest[] = [];
    let answerFirst: ((a: ResolverAnswer) => void) | undefined;
    h = await startHarness(
      {
        lead: ({ turn }) =>
          turn === 0
            ? toolUseReply(
                ['npm test', 'npm test -- --watch', 'npm test -- a.test.ts'].map((command, i) => ({
                  name: 'Task',
                  input: { description: `t${i}`, prompt: command, subagent_type: 'worker' },
                })),
              )
            : textReply('lead done'),
        worker: ({ turn, req }) => {
          const first = req.body.messages[0]?.content;
          const command = typeof first === 'string' ? first : 'true';
          return turn === 0 ? toolUseReply([{ name: 'Bash', input: { command } }]) : textReply('ran');
        },
      },
      { lead: { tools: ['Task'] }, worker: { tools: ['Bash'] } },
      {
        approvals: callbackResolver(
          (request) =>
            new Promise<ResolverAnswer>((resolve) => {
              asked.push(request);
              answerFirst = resolve;
            }),
        ),
      },
    );
    const run = h.runtime.run({ subagent_type: 'lead', prompt: 'go' });
    // All three ask; one is shown, two wait behind it. Waiting for the three (not for a time) is
    // what makes the answer below one that covers queued requests, on a machine of any speed.
    const { runtime } = h;
    await until(() => runtime.approvals.pending().length === 3, 'all three Bash calls to ask');
    expect(asked).toHaveLength(1);
    answerFirst?.({ decision: 'allow', scope: 'session' });
    expect((await run).status).toBe('completed');
    expect(asked).toHaveLength(1);
    await h.runtime.close();
    const audit = (await auditLines(h)).filter((l) => l.capability === 'exec.run');
    expect(audit.map((l) => l.decidedBy).sort()).toEqual(['session', 'session', 'user']);
    expect(audit.every((l) => l.approval === 'allow' && l.ok === true)).toBe(true);
  });
});
