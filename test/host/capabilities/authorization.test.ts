// The one authorization step (effect-context.ts: policy -> a person when it asks -> audit), tested
// once for every capability kind that can ask. Each kind's real host handler is driven through the
// same five scenarios: allowed by a rule, denied by a rule, asked and approved, asked and refused,
// and asked while the run is cancelled. Every scenario checks the answer the worker gets, whether
// the effect happened, the line in the real audit log, that an ask stops the run's clock (a real
// Deadline on an injected clock: a person taking a minute does not spend a 5 s timeout) and that
// the clock counts again afterwards. Subagent launches (agents.task) go through a real runtime: a
// lead with a 2 s timeout outlives a 2.5 s approval of its Task call, and the launch is audited.
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalBroker, callbackResolver } from '../../../src/host/approvals/index.js';
import type { ApprovalRequest, ResolverAnswer } from '../../../src/host/approvals/types.js';
import { createAuditLog, type AuditLog } from '../../../src/host/capabilities/audit.js';
import type { EffectContext } from '../../../src/host/capabilities/effect-context.js';
import { effectHandlers } from '../../../src/host/capabilities/fs-handlers.js';
import { mcpCallHandler } from '../../../src/host/capabilities/mcp/call-handler.js';
import type { McpConnection } from '../../../src/host/capabilities/mcp/connection.js';
import type { RunMcpTool } from '../../../src/host/capabilities/mcp/run-mcp-tools.js';
import type { PolicyRules } from '../../../src/host/capabilities/policy.js';
import { sandboxOff } from '../../support/sandbox-off.js';
import { Deadline, type Clock } from '../../../src/host/pool/deadline.js';
import { webHandlers } from '../../../src/host/web/web-fetch-handler.js';
import type { Capabilities } from '../../../src/shared/capabilities.js';
import type { Envelope } from '../../../src/shared/errors.js';
import { systemText, textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { tempProject } from '../../support/project.js';
import { startHarness, type Harness } from '../agents/harness.js';

const SCENARIOS = ['allow', 'deny', 'ask-approved', 'ask-refused', 'ask-cancelled'] as const;
type Scenario = (typeof SCENARIOS)[number];

/** What one scenario of one kind showed. */
interface Observed {
  /** The answer the worker got (undefined: the run ended before it could read one). */
  envelope: { ok: boolean; code?: string } | undefined;
  /** The call's line in the audit log. */
  audit: Record<string, unknown> | undefined;
  asked: ApprovalRequest[];
  /** During the ask the run's clock stood still (and its timeout did not fire). */
  clockHeld: boolean | undefined;
  /** After the call the run's clock counts again (undefined: not observable for this kind). */
  clockCounts: boolean | undefined;
  effect: boolean;
  /** How the calling run ended (kinds driven through a real runtime). */
  status?: string;
}

/** One call of one kind, tagged so that its rule, its effect and its audit line are its own. */
interface KindCall {
  rule: string;
  call(handlers: Partial<Capabilities>): Promise<Envelope<unknown>>;
  effect(envelope: Envelope<unknown>): Promise<boolean>;
}

let project: { dir: string; home: string; cleanup(): Promise<void> };
let audit: AuditLog;
let auditFile: string;
let server: http.Server;
let origin: string;
const pageHits: string[] = [];
const mcpCalls: string[] = [];

beforeAll(async () => {
  project = await tempProject({ 'src/a.ts': 'alpha\n', 'src/b.ts': 'beta\n' });
  auditFile = path.join(project.home, 'audit.jsonl');
  audit = await createAuditLog(auditFile);
  server = http.createServer((req, res) => {
    pageHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('page text');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await audit.close();
  server.closeAllConnections();
  server.close();
  await project.cleanup();
});

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
const valueOf = (envelope: Envelope<unknown>) =>
  envelope.ok ? (envelope.value as Record<string, unknown>) : {};

/** The direct kinds: each builds its tagged call. */
const DIRECT: Record<string, (tag: string) => KindCall> = {
  'fs.read': () => ({
    rule: 'Read(src/a.ts)',
    call: (h) => h['fs.read']!({ path: 'src/a.ts' }),
    effect: async (e) => valueOf(e)['content'] === 'alpha\n',
  }),
  'fs.readMany (glob)': () => ({
    rule: 'Glob(src/**)',
    call: (h) => h['fs.readMany']!({ paths: [], glob: { pattern: '*.ts', path: 'src' }, packed: true }),
    effect: async (e) => JSON.stringify(valueOf(e)).includes('a.ts'),
  }),
  'fs.glob': () => ({
    rule: 'Glob(src/**)',
    call: (h) => h['fs.glob']!({ pattern: '*.ts', path: 'src' }),
    effect: async (e) => JSON.stringify(valueOf(e)).includes('b.ts'),
  }),
  'fs.stat': () => ({
    rule: 'Read(src/a.ts)',
    call: (h) => h['fs.stat']!({ path: 'src/a.ts' }),
    effect: async (e) => valueOf(e)['size'] === 6,
  }),
  'fs.list': () => ({
    rule: 'LS(src)',
    call: (h) => h['fs.list']!({ path: 'src' }),
    effect: async (e) => JSON.stringify(valueOf(e)).includes('a.ts'),
  }),
  'fs.write': (tag) => ({
    rule: `Write(out/${tag}.txt)`,
    call: (h) => h['fs.write']!({ path: `out/${tag}.txt`, content: 'written' }),
    effect: () => exists(path.join(project.dir, 'out', `${tag}.txt`)),
  }),
  'exec.run': (tag) => ({
    rule: `Bash(touch ran-${tag})`,
    call: (h) => h['exec.run']!({ command: `touch ran-${tag}` }),
    effect: () => exists(path.join(project.dir, `ran-${tag}`)),
  }),
  'web.fetch': (tag) => ({
    rule: 'WebFetch(domain:127.0.0.1)',
    call: (h) => h['web.fetch']!({ url: `${origin}/${tag}` }),
    effect: async () => pageHits.includes(`/${tag}`),
  }),
  'mcp.call': (tag) => ({
    rule: 'mcp__fixture__echo',
    call: (h) => h['mcp.call']!({ tool: 'mcp__fixture__echo', input: { tag } }),
    effect: async () => mcpCalls.includes(tag),
  }),
};

/** A clock that moves only when told to, firing the timers that fall due. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(++next, { at: now + ms, fn });
      return next;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      now += ms;
      for (const [id, timer] of [...timers])
        if (timer.at <= now) {
          timers.delete(id);
          timer.fn();
        }
    },
  };
}

function rulesFor(scenario: Scenario, rule: string): PolicyRules {
  if (scenario === 'allow') return { allow: [rule] };
  if (scenario === 'deny') return { allow: [rule], deny: [rule] };
  return { ask: [rule] };
}

/** The MCP tool the mcp.call kind is offered; its server (outside cadre) answers every call. */
function mcpTable(): Map<string, RunMcpTool> {
  const connection = {
    call: (_tool: string, input: Record<string, unknown>) => {
      mcpCalls.push(String(input['tag']));
      return Promise.resolve({ content: [{ type: 'text', text: 'echoed' }] });
    },
  } as unknown as McpConnection;
  const entry: RunMcpTool = {
    name: 'mcp__fixture__echo',
    server: 'fixture',
    tool: 'echo',
    readOnly: false,
    connection,
    timeoutMs: 5000,
    maxOutputChars: 10_000,
  };
  return new Map([[entry.name, entry]]);
}

async function auditLine(agentId: string): Promise<Record<string, unknown> | undefined> {
  await audit.flush();
  const lines = (await readFile(auditFile, 'utf8')).trim().split('\n');
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['agentId'] === agentId);
}

/** Drives one direct kind's real handler through one scenario. */
async function driveDirect(kind: string, scenario: Scenario): Promise<Observed> {
  const tag = `${kind.replace(/[^a-z]+/g, '-')}-${scenario}`;
  const spec = (DIRECT[kind] as (tag: string) => KindCall)(tag);
  const clock = manualClock();
  let expired = false;
  const deadline = new Deadline(
    5_000,
    undefined,
    () => undefined,
    () => (expired = true),
    clock,
  );
  deadline.start();
  const run = new AbortController();
  const asked: ApprovalRequest[] = [];
  let clockHeld: boolean | undefined;
  const resolver = callbackResolver((request, signal) => {
    asked.push(request);
    const before = deadline.elapsedMs();
    // The person takes a minute: far past the run's 5 s timeout, were the clock counting.
    clock.advance(60_000);
    clockHeld = deadline.elapsedMs() === before && !expired;
    if (scenario === 'ask-cancelled') {
      run.abort();
      return new Promise<ResolverAnswer>((resolve) => {
        const late = () => resolve({ decision: 'allow', reason: 'too late' });
        if (signal.aborted) late();
        else signal.addEventListener('abort', late);
      });
    }
    return scenario === 'ask-approved'
      ? { decision: 'allow', reason: 'go ahead' }
      : { decision: 'deny', reason: 'not now' };
  });
  const ctx: EffectContext = {
    agentId: tag,
    agentType: 'tester',
    projectDir: project.dir,
    extraRoots: [],
    homeDir: project.home,
    mode: 'default',
    rules: rulesFor(scenario, spec.rule),
    records: [],
    protect: [],
    sandbox: sandboxOff(),
    approvals: new ApprovalBroker(resolver),
    audit,
    signal: run.signal,
    pauseClock: () => deadline.pause(),
  };
  const handlers: Partial<Capabilities> = {
    ...effectHandlers(ctx),
    ...webHandlers(ctx, { allowPrivate: ['127.0.0.1'], maxBytes: 1024 * 1024, timeoutSeconds: 10 }),
    'mcp.call': mcpCallHandler(ctx, mcpTable()),
  };
  const envelope = await spec.call(handlers);
  const after = deadline.elapsedMs();
  clock.advance(1_000);
  const clockCounts = deadline.elapsedMs() === after + 1_000;
  deadline.stop();
  return {
    envelope: envelope.ok ? { ok: true } : { ok: false, code: envelope.error.code },
    audit: await auditLine(tag),
    asked,
    clockHeld,
    clockCounts,
    effect: await spec.effect(envelope),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Drives a lead's Task call (the real agents.task handler of a real runtime) through one scenario. */
async function driveDelegation(scenario: Scenario): Promise<Observed> {
  const rule = 'Task(worker)';
  const asked: ApprovalRequest[] = [];
  let seen: { content?: unknown; is_error?: boolean } | undefined;
  let stop: (() => void) | undefined;
  let h: Harness | undefined;
  try {
    h = await startHarness(
      {
        lead: ({ turn, results }) => {
          if (turn === 0)
            return toolUseReply([
              {
                name: 'Task',
                input: { description: 'look', prompt: 'look around', subagent_type: 'worker' },
              },
            ]);
          seen = results[0];
          return textReply('lead done');
        },
        worker: () => textReply('worker report'),
      },
      // The lead's timeout (4 s: its own and its child's thread starts and three model calls run on
      // its clock, several times that on a loaded machine) is shorter than the person takes to
      // answer (5 s).
      { lead: { tools: ['Task'], timeout: 4 }, worker: { tools: ['Read'] } },
      {
        files: { '.cadre/config.json': JSON.stringify({ permissions: rulesFor(scenario, rule) }) },
        approvals: callbackResolver(async (request, signal) => {
          asked.push(request);
          if (scenario === 'ask-cancelled') {
            // The handle is in hand once task() returns; an ask can hardly come first, but wait for it.
            const cancel = (): void => void (stop ? stop() : setTimeout(cancel, 10));
            cancel();
            return new Promise<ResolverAnswer>((resolve) => {
              const late = () => resolve({ decision: 'allow', reason: 'too late' });
              if (signal.aborted) late();
              else signal.addEventListener('abort', late);
            });
          }
          await sleep(5000);
          return scenario === 'ask-approved'
            ? { decision: 'allow', reason: 'go ahead' }
            : { decision: 'deny', reason: 'not now' };
        }),
      },
    );
    const handle = await h.runtime.task({ subagent_type: 'lead', prompt: 'go' }, { events: false });
    stop = () => handle.stop();
    const out = await handle.result;
    const workerRan = h.server.requests.some((r) => systemText(r.body).startsWith('[worker]'));
    await h.runtime.close();
    const lines = (await readFile(h.runtime.records.auditLog, 'utf8')).trim().split('\n');
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['capability'] === 'agents.task');
    const text = JSON.stringify(seen?.content ?? '');
    const code = /(permission_denied|approval_denied)/.exec(text)?.[1];
    return {
      envelope: seen === undefined ? undefined : { ok: seen.is_error !== true, ...(code ? { code } : {}) },
      audit: line,
      asked,
      // Were the lead's clock counting while the person answered, the lead would have timed out.
      clockHeld: asked.length === 0 ? undefined : scenario === 'ask-cancelled' || out.status === 'completed',
      clockCounts: undefined,
      effect: workerRan,
      status: out.status,
    };
  } finally {
    await h?.close();
  }
}

/** What every kind must show in each scenario. */
function expectScenario(scenario: Scenario, capability: string, seen: Observed): void {
  expect(seen.audit, `${capability}: no audit line`).toBeDefined();
  expect(seen.audit?.['capability']).toBe(capability);
  if (scenario === 'allow' || scenario === 'deny') {
    expect(seen.asked).toEqual([]);
    expect(seen.audit).toMatchObject({ decision: scenario, decidedBy: 'policy', ok: scenario === 'allow' });
    expect(seen.audit?.['approval']).toBeUndefined();
  } else {
    expect(seen.asked.map((r) => r.capability)).toEqual([capability]);
    expect(seen.clockHeld, `${capability}: the clock ran while a person was asked`).toBe(true);
    const approval = scenario === 'ask-approved' ? 'allow' : 'deny';
    const decidedBy = scenario === 'ask-cancelled' ? 'cancelled' : 'user';
    expect(seen.audit).toMatchObject({ decision: 'ask', approval, decidedBy, ok: approval === 'allow' });
    expect(typeof seen.audit?.['waitedMs']).toBe('number');
  }
  const allowed = scenario === 'allow' || scenario === 'ask-approved';
  expect(seen.effect, `${capability}: effect`).toBe(allowed);
  if (!allowed) {
    const code = scenario === 'deny' ? 'permission_denied' : 'approval_denied';
    expect(seen.audit).toMatchObject({ errorCode: code });
    if (seen.envelope) expect(seen.envelope).toMatchObject({ ok: false, code });
  } else expect(seen.envelope).toEqual({ ok: true });
  if (seen.clockCounts !== undefined)
    expect(seen.clockCounts, `${capability}: clock after the call`).toBe(true);
}

const capabilityOf = (kind: string) => kind.split(' ')[0] as string;

describe('the one authorization step, for every capability kind', () => {
  const cases = Object.keys(DIRECT).flatMap((kind) => SCENARIOS.map((scenario) => [kind, scenario] as const));
  it.each(cases)('%s: %s', async (kind, scenario) => {
    const seen = await driveDirect(kind, scenario);
    expect(seen.envelope, `${kind}: the worker got no answer`).toBeDefined();
    // fs.readMany's glob form is judged as the fs.glob call it replaces, and audited as itself.
    const asks = kind.startsWith('fs.readMany') ? 'fs.glob' : capabilityOf(kind);
    expectScenario(scenario, capabilityOf(kind), {
      ...seen,
      asked: seen.asked.map((r) => ({
        ...r,
        capability: r.capability === asks ? capabilityOf(kind) : r.capability,
      })),
    });
  });

  it.each(SCENARIOS)("agents.task (a lead's launch of a subagent): %s", async (scenario) => {
    const seen = await driveDelegation(scenario);
    expectScenario(scenario, 'agents.task', seen);
    if (scenario === 'ask-cancelled') expect(seen.status).toBe('cancelled');
    else {
      expect(seen.status).toBe('completed');
      expect(seen.envelope, 'the lead read no Task result').toBeDefined();
    }
  });

  it("fs.readMany's paths form never asks: a file the policy would ask about is skipped, unread, and the call audited", async () => {
    await mkdir(path.join(project.dir, 'notes'), { recursive: true });
    await writeFile(path.join(project.dir, 'notes', 'private.md'), 'PRIVATE\n');
    const seen: ApprovalRequest[] = [];
    const ctx: EffectContext = {
      agentId: 'readmany-paths',
      agentType: 'tester',
      projectDir: project.dir,
      extraRoots: [],
      homeDir: project.home,
      mode: 'default',
      rules: { ask: ['Read(notes/**)'] },
      records: [],
      protect: [],
      sandbox: sandboxOff(),
      approvals: new ApprovalBroker(
        callbackResolver((request) => {
          seen.push(request);
          return { decision: 'allow' };
        }),
      ),
      audit,
      signal: new AbortController().signal,
      pauseClock: () => () => undefined,
    };
    const out = await effectHandlers(ctx)['fs.readMany']!({ paths: ['src/a.ts', 'notes/private.md'] });
    if (!out.ok) throw new Error(out.error.message);
    expect(seen).toEqual([]);
    expect(JSON.stringify(out.value)).not.toContain('PRIVATE');
    expect(out.value.skipped).toEqual([{ path: 'notes/private.md', reason: expect.any(String) }]);
    expect(await auditLine('readmany-paths')).toMatchObject({
      capability: 'fs.readMany',
      ok: true,
      reason: '1 of 2 paths allowed',
    });
  });
});
