import { describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../../src/host/approvals/broker.js';
import { callbackResolver, nonInteractiveResolver } from '../../../src/host/approvals/resolvers.js';
import type {
  ApprovalInput,
  ApprovalNotice,
  ApprovalRequest,
  ResolverAnswer,
} from '../../../src/host/approvals/types.js';

function input(overrides: Partial<ApprovalInput> = {}): ApprovalInput {
  return {
    agentId: 'agent-1',
    agentType: 'bash',
    capability: 'exec.run',
    summary: 'npm test',
    reason:
      'running "npm test" needs approval in default mode; allow it with an allow rule such as "Bash(npm test:*)"',
    suggestions: ['Bash(npm test:*)'],
    ...overrides,
  };
}

/** A resolver a test answers by hand, one request at a time. */
function manualResolver() {
  const asked: { request: ApprovalRequest; signal: AbortSignal; answer: (a: ResolverAnswer) => void }[] = [];
  const resolver = callbackResolver(
    (request, signal) => new Promise<ResolverAnswer>((answer) => asked.push({ request, signal, answer })),
  );
  return { resolver, asked };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ApprovalBroker with the non-interactive resolver', () => {
  it('denies at once, saying which rule or mode would allow the call', async () => {
    const broker = new ApprovalBroker(nonInteractiveResolver(), { clock: () => 5 });
    const result = await broker.request(input());
    expect(result.decision).toBe('deny');
    expect(result.waitedMs).toBe(0);
    expect(result.reason).toContain('non-interactive');
    expect(result.reason).toContain('"Bash(npm test:*)" to permissions.allow in .cadre/config.json');
    expect(result.reason).toContain('--permission-mode');
    expect(result.reason).toContain('Do not retry');
    expect(broker.interactive).toBe(false);
  });

  it('answers a burst of requests from many agents without hanging', async () => {
    const broker = new ApprovalBroker(nonInteractiveResolver());
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => broker.request(input({ agentId: `a${i}` }))),
    );
    expect(results.every((r) => r.decision === 'deny')).toBe(true);
    expect(broker.pending()).toEqual([]);
  });
});

describe('ApprovalBroker with a person answering', () => {
  it('asks one request at a time, labelled with the asking agent, and reports the wait', async () => {
    let now = 1000;
    const { resolver, asked } = manualResolver();
    const broker = new ApprovalBroker(resolver, { clock: () => now });
    const first = broker.request(input({ agentId: 'a', agentType: 'explore' }));
    const second = broker.request(input({ agentId: 'b', summary: 'make' }));
    await tick();
    expect(asked).toHaveLength(1);
    expect(asked[0]?.request).toMatchObject({
      agentId: 'a',
      agentType: 'explore',
      capability: 'exec.run',
      requestedAt: 1000,
    });
    expect(broker.pending().map((r) => r.agentId)).toEqual(['a', 'b']);
    now = 4000;
    asked[0]?.answer({ decision: 'allow', reason: 'ok by me' });
    expect(await first).toMatchObject({
      decision: 'allow',
      reason: 'ok by me',
      waitedMs: 3000,
      remembered: false,
    });
    await tick();
    expect(asked).toHaveLength(2);
    now = 4500;
    asked[1]?.answer({ decision: 'deny' });
    expect(await second).toMatchObject({ decision: 'deny', reason: 'not approved', waitedMs: 3500 });
  });

  it('remembers "allow for this session" and answers later matches without asking', async () => {
    const { resolver, asked } = manualResolver();
    const broker = new ApprovalBroker(resolver);
    const first = broker.request(input());
    const queued = broker.request(input({ agentId: 'other' }));
    await tick();
    asked[0]?.answer({ decision: 'allow', scope: 'session' });
    await first;
    expect(await queued).toMatchObject({ decision: 'allow', remembered: true });
    expect((await broker.request(input({ summary: 'npm test -- --watch' }))).remembered).toBe(true);
    expect(asked).toHaveLength(1);
    expect(broker.sessionRules()).toEqual(['Bash(npm test:*)']);
    const different = broker.request(input({ suggestions: ['Bash(make:*)'] }));
    await tick();
    expect(asked).toHaveLength(2);
    asked[1]?.answer({ decision: 'deny', scope: 'session' });
    expect((await different).decision).toBe('deny');
    expect(await broker.request(input({ suggestions: ['Bash(make:*)'] }))).toMatchObject({
      decision: 'deny',
      remembered: true,
    });
  });

  it('denies a queued request whose run is cancelled, without showing it', async () => {
    const { resolver, asked } = manualResolver();
    const broker = new ApprovalBroker(resolver);
    const first = broker.request(input());
    const controller = new AbortController();
    const second = broker.request(input({ agentId: 'doomed', signal: controller.signal }));
    controller.abort();
    expect(await second).toMatchObject({ decision: 'deny', reason: expect.stringContaining('cancelled') });
    asked[0]?.answer({ decision: 'allow' });
    await first;
    await tick();
    expect(asked).toHaveLength(1);
  });

  it('stops the prompt of a cancelled run and moves on to the next request', async () => {
    const { resolver, asked } = manualResolver();
    const broker = new ApprovalBroker(resolver);
    const controller = new AbortController();
    const first = broker.request(input({ signal: controller.signal }));
    const second = broker.request(input({ agentId: 'next' }));
    await tick();
    controller.abort();
    expect((await first).decision).toBe('deny');
    expect(asked[0]?.signal.aborted).toBe(true);
    await tick();
    expect(asked[1]?.request.agentId).toBe('next');
    asked[0]?.answer({ decision: 'allow' });
    asked[1]?.answer({ decision: 'allow' });
    expect((await second).decision).toBe('allow');
  });

  it('denies an already-aborted request at once', async () => {
    const { resolver, asked } = manualResolver();
    const broker = new ApprovalBroker(resolver);
    expect((await broker.request(input({ signal: AbortSignal.abort() }))).decision).toBe('deny');
    expect(asked).toHaveLength(0);
  });

  it('gives up after maxWaitMs', async () => {
    const { resolver } = manualResolver();
    const broker = new ApprovalBroker(resolver, { maxWaitMs: 20 });
    const result = await broker.request(input());
    expect(result).toMatchObject({ decision: 'deny', reason: 'no answer within 0 s' });
  });

  it('denies when the prompt throws', async () => {
    const broker = new ApprovalBroker(
      callbackResolver(() => {
        throw new Error('terminal gone');
      }),
    );
    expect(await broker.request(input())).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('terminal gone'),
    });
  });

  it('denies pending and later requests once closed', async () => {
    const { resolver } = manualResolver();
    const broker = new ApprovalBroker(resolver);
    const pending = broker.request(input());
    broker.close('shutting down');
    expect(await pending).toMatchObject({ decision: 'deny', reason: 'shutting down' });
    expect(await broker.request(input())).toMatchObject({ decision: 'deny', reason: 'shutting down' });
  });

  it('tells listeners about every request and result', async () => {
    const notices: ApprovalNotice[] = [];
    const broker = new ApprovalBroker(
      callbackResolver(() => ({ decision: 'allow' })),
      { newId: () => 'id-1' },
    );
    const off = broker.on((n) => notices.push(n));
    broker.on(() => {
      throw new Error('a broken listener');
    });
    await broker.request(input());
    off();
    await broker.request(input());
    expect(notices.map((n) => n.type)).toEqual(['request', 'result']);
    expect(notices[1]).toMatchObject({
      type: 'result',
      request: { id: 'id-1' },
      result: { requestId: 'id-1', decision: 'allow' },
    });
  });

  it('an "always" answers every queued request it covers at once, even behind one it does not', async () => {
    const { resolver, asked } = manualResolver();
    const broker = new ApprovalBroker(resolver);
    const first = broker.request(input({ agentId: 'a' }));
    const other = broker.request(input({ agentId: 'b', summary: 'make', suggestions: ['Bash(make:*)'] }));
    const covered = broker.request(input({ agentId: 'c', summary: 'npm test -- --watch' }));
    await tick();
    expect(broker.pending().map((r) => r.agentId)).toEqual(['a', 'b', 'c']);
    asked[0]?.answer({ decision: 'allow', scope: 'session' });
    expect(await first).toMatchObject({ decision: 'allow', decidedBy: 'user' });
    expect(await covered).toMatchObject({ decision: 'allow', remembered: true, decidedBy: 'session' });
    expect(broker.pending().map((r) => r.agentId)).toEqual(['b']);
    asked[1]?.answer({ decision: 'deny' });
    expect(await other).toMatchObject({ decision: 'deny', decidedBy: 'user' });
  });

  it("judges coverage with the request's own check when it has one, and asks when the check fails", async () => {
    const { resolver, asked } = manualResolver();
    const broker = new ApprovalBroker(resolver);
    const first = broker.request(input({ suggestions: ['Bash(git status:*)'] }));
    await tick();
    asked[0]?.answer({ decision: 'allow', scope: 'session' });
    await first;
    const seen: (readonly string[])[] = [];
    const judged = await broker.request(
      input({
        suggestions: ['Bash(something-else:*)'],
        coveredBy: (rules) => {
          seen.push(rules);
          return true;
        },
      }),
    );
    expect(judged).toMatchObject({ decision: 'allow', decidedBy: 'session' });
    expect(seen).toEqual([['Bash(git status:*)']]);
    const broken = broker.request(
      input({
        suggestions: ['Bash(git status:*)'],
        coveredBy: () => {
          throw new Error('policy exploded');
        },
      }),
    );
    await tick();
    expect(asked).toHaveLength(2);
    asked[1]?.answer({ decision: 'deny' });
    expect(await broken).toMatchObject({ decision: 'deny', decidedBy: 'user' });
  });

  it('says who decided each way a request can end', async () => {
    expect((await new ApprovalBroker(nonInteractiveResolver()).request(input())).decidedBy).toBe(
      'non-interactive',
    );
    const { resolver } = manualResolver();
    const timed = new ApprovalBroker(resolver, { maxWaitMs: 5 });
    expect((await timed.request(input())).decidedBy).toBe('timeout');
    const failing = new ApprovalBroker(callbackResolver(() => Promise.reject(new Error('tty closed'))));
    expect((await failing.request(input())).decidedBy).toBe('prompt-error');
    const cancelled = new ApprovalBroker(manualResolver().resolver);
    expect((await cancelled.request(input({ signal: AbortSignal.abort() }))).decidedBy).toBe('cancelled');
    cancelled.close();
    expect((await cancelled.request(input())).decidedBy).toBe('closed');
  });
});
