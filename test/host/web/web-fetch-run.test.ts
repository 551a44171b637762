// WebFetch in a real run: the model's tool call crosses the worker's capability port to the host,
// which fetches from a loopback server the person trusts; the page (or the non-interactive denial)
// comes back to the model as the tool result, through the real SDK and the fake Messages API.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../agents/harness.js';
import { addressRefusal, privateAllowance } from '../../../src/host/web/address-guard.js';
import { pageText } from '../../../src/host/web/page-text.js';

let server: http.Server;
let base: string;
let h: Harness | undefined;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<h2>Changelog</h2><p>cadre <em>0.2</em> ships WebFetch.</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function runResearcher(
  config: Record<string, unknown>,
): Promise<{ result: string; toolResult: string }> {
  let toolResult = '';
  h = await startHarness(
    {
      researcher: ({ turn, results }) => {
        if (turn === 0)
          return toolUseReply([
            { name: 'WebFetch', input: { url: `${base}/changelog`, prompt: 'the version' } },
          ]);
        toolResult = JSON.stringify(results[0]?.content ?? '');
        return textReply(`${results[0]?.is_error === true ? 'ERR' : 'OK'}`);
      },
    },
    { researcher: { tools: ['WebFetch'] } },
    // The person's own config: a project's webFetch.allowPrivate is ignored (project-limits.ts).
    { homeFiles: { '.cadre/config.json': JSON.stringify(config) } },
  );
  const out = await h.runtime.run({ subagent_type: 'researcher', prompt: 'what version is out?' });
  expect(out.status).toBe('completed');
  return { result: out.result, toolResult };
}

describe('WebFetch in a run', () => {
  it('an allowed fetch reaches the model as labelled Markdown with what it was looking for', async () => {
    const { result, toolResult } = await runResearcher({
      permissions: { allow: ['WebFetch(domain:127.0.0.1)'] },
      webFetch: { allowPrivate: ['127.0.0.1'] },
    });
    expect(result).toBe('OK');
    expect(toolResult).toContain('You fetched this page to find: the version');
    expect(toolResult).toContain('## Changelog');
    expect(toolResult).toContain('cadre _0.2_ ships WebFetch.');
    expect(toolResult).toContain('<untrusted-web-content url=');
  });

  it('without a rule, a non-interactive run is denied and the model is told so', async () => {
    const { result, toolResult } = await runResearcher({ webFetch: { allowPrivate: ['127.0.0.1'] } });
    expect(result).toBe('ERR');
    expect(toolResult).toMatch(
      /approval_denied: web\.fetch was not run: it needs approval and this run is non-interactive/,
    );
    expect(toolResult).toContain('WebFetch(domain:127.0.0.1)');
  });

  it('the config key is the only way to reach a private address', async () => {
    const { result, toolResult } = await runResearcher({
      permissions: { allow: ['WebFetch(domain:127.0.0.1)'] },
    });
    expect(result).toBe('ERR');
    expect(toolResult).toMatch(/permission_denied: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a private/);
  });
});

describe('the address guard', () => {
  const none = privateAllowance([]);
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::127.0.0.1',
    '2002:7f00:1::1',
  ])('refuses %s', (address) => {
    expect(addressRefusal(address, 'h', none)).toMatch(/private, loopback, link-local or reserved/);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '64:ff9b::808:808'])(
    'allows %s',
    (address) => {
      expect(addressRefusal(address, 'h', none)).toBeUndefined();
    },
  );

  it('trusts the hosts, addresses and ranges of webFetch.allowPrivate only', () => {
    const trusted = privateAllowance(['10.0.0.0/8', 'wiki.corp.internal', 'fd00::1', 'bogus/99']);
    expect(addressRefusal('10.9.9.9', 'x', trusted)).toBeUndefined();
    expect(addressRefusal('192.168.0.1', 'wiki.corp.internal', trusted)).toBeUndefined();
    expect(addressRefusal('fd00::1', 'x', trusted)).toBeUndefined();
    expect(addressRefusal('fd00::2', 'x', trusted)).toBeDefined();
    expect(addressRefusal('192.168.0.1', 'other.corp.internal', trusted)).toBeDefined();
    expect(addressRefusal('::ffff:10.1.1.1', 'x', trusted)).toBeUndefined();
  });
});

describe('page text', () => {
  it('a page with too many elements for the converter comes back as its text, without building a DOM', () => {
    const html = `<html><body>${'<b>x</b>'.repeat(150_000)}<p>end</p></body></html>`;
    const started = Date.now();
    const page = pageText({ bytes: Buffer.from(html), contentType: 'text/html', maxChars: 1000 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(page.kind).toBe('stripped');
    expect(page.truncated).toBe(true);
    expect(page.text.startsWith('x x x')).toBe(true);
  });

  it('an ordinary page is converted', () => {
    const page = pageText({
      bytes: Buffer.from('<h3>Hi</h3><p>a <code>b</code></p>'),
      contentType: 'text/html',
      maxChars: 1000,
    });
    expect(page).toEqual({ kind: 'markdown', text: '### Hi\n\na `b`', truncated: false });
  });
});
