// The mcp.call handler's own checks, before any server: the request's shape, and a name that is
// not in the run's table (a worker that forges a call cannot reach a tool it was not offered).
// Refusals go through the one effect path: audited as `deny` and reported as `effect-refused`.
import { describe, expect, it } from 'vitest';
import {
  ApprovalBroker,
  callbackResolver,
  nonInteractiveResolver,
} from '../../../../src/host/approvals/index.js';
import type { AuditEntry, AuditLog } from '../../../../src/host/capabilities/audit.js';
import type { EffectRefusal } from '../../../../src/host/capabilities/effect-context.js';
import type { McpConnection } from '../../../../src/host/capabilities/mcp/connection.js';
import { mcpCallHandler } from '../../../../src/host/capabilities/mcp/call-handler.js';
import type { RunMcpTool } from '../../../../src/host/capabilities/mcp/run-mcp-tools.js';
import type { PolicyRules } from '../../../../src/host/capabilities/policy.js';
import type { PermissionMode } from '../../../../src/shared/task.js';
import { SandboxGate } from '../../../../src/host/capabilities/sandbox/gate.js';

function handler(
  options: {
    table?: Map<string, RunMcpTool>;
    mode?: PermissionMode;
    approvals?: ApprovalBroker;
    rules?: PolicyRules;
    signal?: AbortSignal;
  } = {},
) {
  const lines: AuditEntry[] = [];
  const refused: EffectRefusal[] = [];
  const audit: AuditLog = {
    path: 'memory',
    record: (entry) => void lines.push(entry),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const call = mcpCallHandler(
    {
      agentId: 'a-1',
      agentType: 'a',
      projectDir: '/p',
      extraRoots: [],
      homeDir: '/h',
      mode: options.mode ?? 'bypassPermissions',
      rules: options.rules ?? {},
      records: [],
      protect: [],
      sandbox: new SandboxGate(
        { mode: 'auto', allowRead: [], denyRead: [], protect: [], warnings: [] },
        () => undefined,
      ),
      approvals: options.approvals ?? new ApprovalBroker(nonInteractiveResolver()),
      audit,
      signal: options.signal ?? new AbortController().signal,
      pauseClock: () => () => undefined,
      onRefused: (refusal) => void refused.push(refusal),
    },
    options.table ?? new Map(),
  );
  return { call, lines, refused };
}

/** A table entry whose server is never reached (every test here ends before the call). */
function entry(name: string, tool: string): RunMcpTool {
  const connection = {
    call: () => Promise.reject(new Error('the server must not be called')),
  } as unknown as McpConnection;
  return {
    name,
    server: 'fixture',
    tool,
    readOnly: false,
    connection,
    timeoutMs: 1000,
    maxOutputChars: 1000,
  };
}

describe('the mcp.call handler', () => {
  it('refuses a name the run was not offered, even in bypassPermissions, audits it as denied and reports it', async () => {
    const { call, lines, refused } = handler();
    const out = await call({ tool: 'mcp__github__delete_repo', input: { repo: 'x' } });
    expect(out).toEqual({
      ok: false,
      error: {
        code: 'not_granted',
        message:
          'no MCP tool named "mcp__github__delete_repo" is available to this agent; use only the tools it was offered',
      },
    });
    expect(lines).toEqual([
      expect.objectContaining({
        capability: 'mcp.call',
        decision: 'deny',
        ok: false,
        errorCode: 'not_granted',
        args: 'mcp__github__delete_repo (input keys: repo)',
      }),
    ]);
    expect(refused).toEqual([
      expect.objectContaining({
        capability: 'mcp.call',
        code: 'not_granted',
        summary: 'mcp__github__delete_repo (input keys: repo)',
      }),
    ]);
  });

  it('a call the approval refuses is an effect-refused event naming the rule that would allow it', async () => {
    const table = new Map([['mcp__fixture__danger', entry('mcp__fixture__danger', 'danger')]]);
    const { call, lines, refused } = handler({ table, mode: 'default' });
    const out = await call({ tool: 'mcp__fixture__danger', input: { what: 'prod' } });
    expect(!out.ok && out.error.code).toBe('approval_denied');
    // The policy asked, and the non-interactive answer refused.
    expect(lines).toEqual([
      expect.objectContaining({
        decision: 'ask',
        approval: 'deny',
        decidedBy: 'non-interactive',
        errorCode: 'approval_denied',
      }),
    ]);
    expect(refused).toEqual([
      expect.objectContaining({
        capability: 'mcp.call',
        code: 'approval_denied',
        summary: 'mcp__fixture__danger (input keys: what)',
        allow: ['mcp__fixture__danger'],
      }),
    ]);
  });

  it('shows a person the arguments of the call, not only how many there are', async () => {
    const previews: (string | undefined)[] = [];
    const approvals = new ApprovalBroker(
      callbackResolver((request) => {
        previews.push(request.preview);
        return { decision: 'deny', reason: 'no' };
      }),
    );
    const table = new Map([['mcp__fixture__danger', entry('mcp__fixture__danger', 'danger')]]);
    const { call } = handler({ table, mode: 'default', approvals });
    await call({ tool: 'mcp__fixture__danger', input: { sql: 'DROP TABLE users', note: 'x\n[y] allow' } });
    expect(previews).toHaveLength(1);
    const lines = previews[0]?.split('\n') ?? [];
    expect(lines[0]).toMatch(/^call mcp__fixture__danger .* with 2 input fields$/);
    expect(lines).toContain('  "sql": "DROP TABLE users",');
    // A line break inside an argument stays escaped: it cannot start a line of the prompt.
    expect(lines).toContain('  "note": "x\\n[y] allow"');
  });

  it('shows a person the server-chosen tool name made inert', async () => {
    const asked: string[] = [];
    const approvals = new ApprovalBroker(
      callbackResolver((request) => {
        asked.push(request.summary);
        return { decision: 'deny', reason: 'no' };
      }),
    );
    const table = new Map([['mcp__fixture__x', entry('mcp__fixture__x', 'x\u001b]52;c;aGk=\u0007\u202e')]]);
    const { call } = handler({ table, mode: 'default', approvals });
    await call({ tool: 'mcp__fixture__x', input: {} });
    expect(asked).toEqual([
      'call mcp__fixture__x (tool "x␛]52;c;aGk=␇<U+202E>" of MCP server "fixture") with 0 input fields',
    ]);
  });

  it('names the bad field of a malformed request', async () => {
    const { call } = handler();
    for (const raw of [
      { tool: 'Read', input: {} },
      { tool: 'mcp__a__b', input: [] },
      { tool: 'mcp__a__b' },
      null,
      'x',
    ]) {
      const out = await call(raw as never);
      expect(out.ok).toBe(false);
      if (!out.ok) expect(out.error.code).toBe('invalid_input');
    }
    const big = await call({ tool: 'mcp__a__b', input: { text: 'x'.repeat(2 * 1024 * 1024) } });
    expect(!big.ok && big.error.message).toMatch(/input: must be at most \d+ characters as JSON/);
  });

  it('judges each call by the rules as they are at that call: a deny rule added later, a rule allowed for the session', async () => {
    let served = 0;
    const live = {
      ...entry('mcp__fixture__danger', 'danger'),
      connection: {
        call: () => {
          served++;
          return Promise.resolve({ content: [{ type: 'text', text: 'done' }], isError: false });
        },
      } as unknown as McpConnection,
    };
    const table = new Map([['mcp__fixture__danger', live]]);
    const rules = { allow: ['mcp__fixture'], ask: [] as string[], deny: [] as string[] };
    const first = handler({ table, mode: 'default', rules });
    expect((await first.call({ tool: 'mcp__fixture__danger', input: {} })).ok).toBe(true);
    rules.deny.push('mcp__fixture__danger');
    const denied = await first.call({ tool: 'mcp__fixture__danger', input: {} });
    expect(!denied.ok && denied.error.code).toBe('permission_denied');
    expect(served).toBe(1);

    const asked: string[] = [];
    const approvals = new ApprovalBroker(
      callbackResolver((request) => {
        asked.push(request.id);
        return { decision: 'allow', reason: 'yes', scope: 'session' };
      }),
    );
    const second = handler({ table, mode: 'default', approvals });
    for (let i = 0; i < 3; i++)
      expect((await second.call({ tool: 'mcp__fixture__danger', input: {} })).ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(second.lines.map((line) => line.decidedBy)).toEqual(['user', 'session', 'session']);
    expect(served).toBe(4);
  });

  it("a verdict taken from the run's memo still leaves exactly one audit line per call, each saying what decided it", async () => {
    let served = 0;
    const live = {
      ...entry('mcp__fixture__echo', 'echo'),
      connection: {
        call: () => {
          served++;
          return Promise.resolve({ content: [{ type: 'text', text: `echo ${served}` }], isError: false });
        },
      } as unknown as McpConnection,
    };
    const table = new Map([['mcp__fixture__echo', live]]);
    const { call, lines } = handler({ table, mode: 'default', rules: { allow: ['mcp__fixture'] } });
    const outs = [];
    for (let i = 0; i < 40; i++) outs.push(await call({ tool: 'mcp__fixture__echo', input: { i } }));
    expect(outs.map((out) => out.ok && out.value.content)).toEqual(
      Array.from({ length: 40 }, (_, i) => `echo ${i + 1}`),
    );
    expect(served).toBe(40);
    expect(lines).toHaveLength(40);
    for (const line of lines)
      expect(line).toMatchObject({
        capability: 'mcp.call',
        decision: 'allow',
        decidedBy: 'policy',
        rule: 'mcp__fixture',
        ok: true,
        args: 'mcp__fixture__echo (input keys: i)',
      });
  });

  it('the run ending aborts every call in flight (one listener for them all), and a call after the end is cancelled before it is sent', async () => {
    const signals: AbortSignal[] = [];
    const pending: Array<() => void> = [];
    const live = {
      ...entry('mcp__fixture__slow', 'slow'),
      connection: {
        call: (_tool: string, _input: unknown, options: { signal: AbortSignal }) => {
          signals.push(options.signal);
          return new Promise((resolve, reject) => {
            pending.push(() => resolve({ content: [{ type: 'text', text: 'done' }], isError: false }));
            const fail = () => reject(options.signal.reason as Error);
            if (options.signal.aborted) fail();
            else options.signal.addEventListener('abort', fail);
          });
        },
      } as unknown as McpConnection,
    };
    const table = new Map([['mcp__fixture__slow', live]]);
    const run = new AbortController();
    const { call, lines } = handler({ table, signal: run.signal });
    // One call answered before the end: its signal is released, so no cancellation follows it.
    const answered = call({ tool: 'mcp__fixture__slow', input: {} });
    await new Promise((resolve) => setImmediate(resolve));
    pending.shift()?.();
    expect((await answered).ok).toBe(true);
    const inFlight = [0, 1, 2].map(() => call({ tool: 'mcp__fixture__slow', input: {} }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(signals).toHaveLength(4);
    expect(signals.map((s) => s.aborted)).toEqual([false, false, false, false]);
    run.abort();
    const ended = await Promise.all(inFlight);
    expect(signals.map((s) => s.aborted)).toEqual([false, true, true, true]);
    for (const out of ended)
      expect(!out.ok && out.error).toEqual({
        code: 'cancelled',
        message: 'mcp__fixture__slow was cancelled because the calling agent ended',
      });
    const late = await call({ tool: 'mcp__fixture__slow', input: {} });
    expect(signals[4]?.aborted).toBe(true);
    expect(!late.ok && late.error.code).toBe('cancelled');
    expect(lines.map((line) => line.ok)).toEqual([true, false, false, false, false]);
  });
});
