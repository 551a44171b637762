// WebSearch: offered as Anthropic's server-side tool only where the endpoint offers it and the
// policy allows it outright, with the domain lists from config; each search the provider runs is
// reported as an event and audited. End to end through the real SDK and the fake Messages API.
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/shared/run-spec.js';
import type { WebSearchSettings } from '../../../src/host/config/merge.js';
import { verifyAuditLog } from '../../../src/host/records/audit-verify.js';
import { webSearchGrant } from '../../../src/host/web/web-search-grant.js';
import { messageReply, textReply, toolUseId } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../agents/harness.js';

const anthropic: ModelConfig = {
  provider: 'anthropic',
  model: 'claude-sonnet-5-5',
  maxTokens: 1000,
  streamIdleTimeoutMs: 1000,
  maxRetries: 0,
};
const settings = (over: Partial<WebSearchSettings> = {}): WebSearchSettings => ({
  allowedDomains: [],
  blockedDomains: [],
  endpoints: [],
  ...over,
});
const policy = { projectDir: '/project', mode: 'default' as const, rules: {} };

describe('webSearchGrant', () => {
  it("is offered on Anthropic's API, with the domain lists", () => {
    expect(webSearchGrant(['Read', 'WebSearch'], anthropic, settings({ maxUses: 3 }), policy)).toMatchObject({
      tools: ['Read', 'WebSearch'],
      webSearch: { max_uses: 3 },
    });
    expect(
      webSearchGrant(['WebSearch'], anthropic, settings({ blockedDomains: ['ads.example'] }), policy)
        .webSearch,
    ).toEqual({ blocked_domains: ['ads.example'] });
    // The API takes one list: with both, the blocked domains (and their subdomains) leave the allowed list.
    expect(
      webSearchGrant(
        ['WebSearch'],
        anthropic,
        settings({
          allowedDomains: ['docs.python.org', 'x.spam.com', 'nodejs.org'],
          blockedDomains: ['spam.com'],
        }),
        policy,
      ).webSearch,
    ).toEqual({ allowed_domains: ['docs.python.org', 'nodejs.org'] });
  });

  it('is dropped where the endpoint does not offer it, unless config lists the endpoint', () => {
    const local = { ...anthropic, baseURL: 'http://127.0.0.1:11434' };
    expect(webSearchGrant(['Read', 'WebSearch'], local, settings(), policy)).toMatchObject({
      tools: ['Read'],
      dropped: expect.stringMatching(
        /127\.0\.0\.1:11434 is not known to offer Anthropic's server-side web search/,
      ),
    });
    expect(
      webSearchGrant(['WebSearch'], local, settings({ endpoints: ['http://127.0.0.1:11434/'] }), policy)
        .webSearch,
    ).toEqual({});
    const offline: ModelConfig = { ...anthropic, provider: 'offline', model: 'offline' };
    expect(webSearchGrant(['WebSearch'], offline, settings(), policy).dropped).toMatch(/offline model/);
  });

  it('a deny rule drops it; an ask rule drops it too (a search cannot wait for an approval)', () => {
    expect(
      webSearchGrant(['Read', 'WebSearch'], anthropic, settings(), {
        ...policy,
        rules: { deny: ['WebSearch'] },
      }),
    ).toMatchObject({ tools: ['Read'], dropped: expect.stringMatching(/deny rule "WebSearch"/) });
    expect(
      webSearchGrant(['Read', 'WebSearch'], anthropic, settings(), {
        ...policy,
        rules: { ask: ['WebSearch'] },
      }),
    ).toMatchObject({ tools: ['Read'], dropped: expect.stringMatching(/cannot wait for an approval/) });
  });

  it('allowed domains all blocked: not offered', () => {
    expect(
      webSearchGrant(
        ['WebSearch'],
        anthropic,
        settings({ allowedDomains: ['a.com'], blockedDomains: ['a.com'] }),
        policy,
      ).dropped,
    ).toMatch(/removes every domain/);
  });
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const searchReply = (id: string) =>
  messageReply([
    { type: 'text', text: 'Let me search.' },
    { type: 'server_tool_use', id, name: 'web_search', input: { query: 'cadre release' } },
    {
      type: 'web_search_tool_result',
      tool_use_id: id,
      content: [
        {
          type: 'web_search_result',
          url: 'https://docs.example.com/cadre',
          title: 'cadre',
          encrypted_content: 'x',
        },
      ],
    },
    { type: 'text', text: 'Version 0.2 is out.' },
  ]);

describe('WebSearch in a run', () => {
  it('passes the server tool through with the domain lists, reports and audits each search', async () => {
    const id = `srvtoolu_${toolUseId().slice(6)}`;
    h = await startHarness(
      { searcher: () => searchReply(id) },
      { searcher: { tools: ['WebSearch', 'Read'] } },
      {
        files: (serverUrl) => ({
          '.cadre/config.json': JSON.stringify({
            webSearch: { endpoints: [serverUrl], allowedDomains: ['docs.example.com'], maxUses: 2 },
          }),
        }),
      },
    );
    const handle = await h.runtime.task({ subagent_type: 'searcher', prompt: 'what is new?' });
    const events: { type: string; name?: string; input?: unknown; content?: string }[] = [];
    for await (const e of handle.events) events.push(e as (typeof events)[number]);
    const out = await handle.result;
    expect(out.status).toBe('completed');
    expect(out.result).toContain('Version 0.2 is out.');
    const tools = h.server.requests[0]?.body.tools ?? [];
    expect(tools.find((t) => t.name === 'web_search')).toEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      allowed_domains: ['docs.example.com'],
      max_uses: 2,
    });
    expect(tools.map((t) => t.name).sort()).toEqual(['Read', 'web_search']);
    expect(events.find((e) => e.type === 'tool-call' && e.name === 'WebSearch')?.input).toEqual({
      query: 'cadre release',
    });
    expect(events.find((e) => e.type === 'tool-result' && e.name === 'WebSearch')?.content).toBe(
      'https://docs.example.com/cadre',
    );
    await h.runtime.close();
    // The project's hash-chained audit log, among cadre's records (out of the project).
    const log = h.runtime.records.auditLog;
    expect(await verifyAuditLog(log)).toMatchObject({ ok: true });
    const audit = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { capability: string; decision: string; args: { summary: string } });
    expect(
      audit.filter((a) => a.capability === 'web.search').map((a) => [a.decision, a.args.summary]),
    ).toEqual([
      ['allow', 'offered {"allowed_domains":["docs.example.com"],"max_uses":2}'],
      ['allow', 'search cadre release'],
    ]);
  });

  it('on an endpoint config does not name, the tool is not sent and the run is told why', async () => {
    h = await startHarness(
      { searcher: () => textReply('no search here') },
      { searcher: { tools: ['WebSearch', 'Read'] } },
    );
    const handle = await h.runtime.task({ subagent_type: 'searcher', prompt: 'what is new?' });
    const notices: string[] = [];
    for await (const e of handle.events) if (e.type === 'notice') notices.push(e.message);
    expect((await handle.result).status).toBe('completed');
    expect((h.server.requests[0]?.body.tools ?? []).map((t) => t.name)).toEqual(['Read']);
    expect(notices).toContainEqual(
      expect.stringMatching(
        /^WebSearch is not offered to this run: http:\/\/127\.0\.0\.1:\d+ is not known to offer/,
      ),
    );
  });

  it('an agent that inherits every tool is not told WebSearch is missing, and is not offered it', async () => {
    h = await startHarness({ everything: () => textReply('done') }, { everything: {} });
    const handle = await h.runtime.task({ subagent_type: 'everything', prompt: 'what is new?' });
    const notices: string[] = [];
    for await (const e of handle.events) if (e.type === 'notice') notices.push(e.message);
    expect((await handle.result).status).toBe('completed');
    const offered = (h.server.requests[0]?.body.tools ?? []).map((t) => t.name);
    expect(offered).toContain('Read');
    expect(offered).not.toContain('WebSearch');
    expect(notices.filter((n) => n.includes('WebSearch'))).toEqual([]);
  });
});
