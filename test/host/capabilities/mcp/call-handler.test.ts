// The mcp.call handler's own checks, before any server: the request's shape, and a name that is
// not in the run's table (a worker that forges a call cannot reach a tool it was not offered).
import { describe, expect, it } from 'vitest';
import { ApprovalBroker, nonInteractiveResolver } from '../../../../src/host/approvals/index.js';
import type { AuditEntry, AuditLog } from '../../../../src/host/capabilities/audit.js';
import { mcpCallHandler } from '../../../../src/host/capabilities/mcp/call-handler.js';

function handler() {
  const lines: AuditEntry[] = [];
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
      mode: 'bypassPermissions',
      rules: {},
      sandbox: 'auto',
      approvals: new ApprovalBroker(nonInteractiveResolver()),
      audit,
      signal: new AbortController().signal,
      pauseClock: () => () => undefined,
    },
    new Map(),
  );
  return { call, lines };
}

describe('the mcp.call handler', () => {
  it('refuses a name the run was not offered, even in bypassPermissions, and audits it', async () => {
    const { call, lines } = handler();
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
        ok: false,
        errorCode: 'not_granted',
        args: 'mcp__github__delete_repo (input keys: repo)',
      }),
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
});
