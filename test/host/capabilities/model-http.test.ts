// The model channel end to end: the worker's fetch (src/worker/models/host-fetch.ts) over a real
// MessageChannel to the host's HTTP side, against real loopback servers. The host reaches only
// the run's endpoint, swaps the placeholder for the real secret, streams, aborts and cleans up.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { MessageChannel } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditLog } from '../../../src/host/capabilities/audit.js';
import { serveModelChannel, type ModelChannelContext } from '../../../src/host/capabilities/model-http.js';
import { portEndpoint } from '../../../src/shared/endpoint.js';
import { HOST_CREDENTIAL } from '../../../src/shared/model-wire.js';
import { createHostFetch } from '../../../src/worker/models/host-fetch.js';

interface Loopback {
  url: string;
  server: Server;
  seen: IncomingMessage[];
  connections: number;
  closedRequests: number;
}

const open: (() => void)[] = [];
afterEach(() => {
  for (const close of open.splice(0)) close();
});

async function loopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const lb: Loopback = { url: '', server: createServer(), seen: [], connections: 0, closedRequests: 0 };
  lb.server.on('connection', () => lb.connections++);
  lb.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    lb.seen.push(req);
    res.on('close', () => {
      if (!res.writableFinished) lb.closedRequests++;
    });
    handler(req, res);
  });
  await new Promise<void>((resolve) => lb.server.listen(0, '127.0.0.1', resolve));
  lb.url = `http://127.0.0.1:${(lb.server.address() as AddressInfo).port}`;
  open.push(() => {
    lb.server.closeAllConnections();
    lb.server.close();
  });
  return lb;
}

function memoryAudit(): AuditLog & { entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  return {
    path: '(memory)',
    entries,
    record: (entry) => void entries.push(entry),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

function channel(over: Partial<ModelChannelContext> & { baseURL: string }) {
  const ports = new MessageChannel();
  const audit = memoryAudit();
  let activity = 0;
  const host = serveModelChannel(portEndpoint(ports.port1), {
    agentId: 'agent-1',
    agentType: 'explore',
    projectDir: '/project',
    mode: 'plan',
    audit,
    onActivity: () => activity++,
    ...over,
  });
  open.push(() => {
    host.close();
    ports.port1.close();
    ports.port2.close();
  });
  return { host, audit, fetch: createHostFetch(portEndpoint(ports.port2)), activity: () => activity };
}

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('the model channel', () => {
  it('puts the real secret where the worker sent the placeholder, and audits the request', async () => {
    const api = await loopback((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_1' });
      res.end(JSON.stringify({ got: req.headers }));
    });
    const { fetch, audit } = channel({ baseURL: api.url, secret: 'sk-real-secret' });
    const response = await fetch(`${api.url}/v1/messages`, {
      method: 'post',
      headers: { 'X-Api-Key': HOST_CREDENTIAL, Authorization: `Bearer ${HOST_CREDENTIAL}` },
      body: '{"model":"m"}',
    });
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('Request-Id')).toBe('req_1');
    const { got } = (await response.json()) as { got: Record<string, string> };
    expect(got['x-api-key']).toBe('sk-real-secret');
    expect(got.authorization).toBe('Bearer sk-real-secret');
    expect(got['content-length']).toBe('13');
    expect(api.seen[0]?.method).toBe('POST');
    await until(() => audit.entries.length === 1);
    expect(audit.entries[0]).toMatchObject({
      capability: 'model.request',
      decision: 'allow',
      ok: true,
      args: { method: 'POST', url: `${api.url}/v1/messages` },
    });
    expect(JSON.stringify(audit.entries)).not.toContain('sk-real-secret');
  });

  it("refuses every URL outside the run's endpoint, and nothing reaches it", async () => {
    const api = await loopback((_req, res) => res.end('{}'));
    const elsewhere = await loopback((_req, res) => res.end('leaked'));
    const { fetch, audit } = channel({ baseURL: `${api.url}/api`, secret: 'sk-real-secret' });
    const targets = [
      `${elsewhere.url}/v1/messages`,
      `${api.url}/other/v1/messages`,
      `${api.url}/api/../secret`,
      `${api.url}/apix/v1/messages`,
      `http://user:pw@${new URL(api.url).host}/api/v1/messages`,
    ];
    for (const target of targets) {
      const failure = await fetch(target, { method: 'POST', body: '{}' }).then(
        () => undefined,
        (error: unknown) => error as TypeError & { cause: Error },
      );
      expect(failure?.message, target).toBe('fetch failed');
      expect(failure?.cause.message, target).toMatch(/not this run's model endpoint/);
    }
    expect(elsewhere.seen).toHaveLength(0);
    expect(api.seen).toHaveLength(0);
    expect(audit.entries.map((e) => e.decision)).toEqual(targets.map(() => 'deny'));
    const inside = await fetch(`${api.url}/api/v1/messages`, { method: 'POST', body: '{}' });
    expect(inside.status).toBe(200);
  });

  it('streams the body as it arrives and counts every chunk as activity', async () => {
    let release!: () => void;
    const second = new Promise<void>((r) => (release = r));
    const api = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: one\n\n');
      void second.then(() => res.end('event: two\n\n'));
    });
    const { fetch, activity } = channel({ baseURL: api.url });
    const response = await fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('event: one\n\n');
    release();
    const rest = await reader.read();
    expect(new TextDecoder().decode(rest.value)).toBe('event: two\n\n');
    expect((await reader.read()).done).toBe(true);
    expect(activity()).toBeGreaterThanOrEqual(2);
  });

  it('sends what one turn of the host brings in one message: head, joined chunks and end', async () => {
    // A whole chunked reply in one socket write: the host's HTTP parser emits the head, three body
    // chunks and the end in one turn of its event loop.
    const parts = ['event: a\n', 'data: 1\n\n', 'event: b\ndata: 2\n\n'];
    const reply =
      'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n' +
      parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('') +
      '0\r\n\r\n';
    const sockets: net.Socket[] = [];
    const raw = net.createServer((socket) => {
      sockets.push(socket);
      socket.once('data', () => socket.write(reply));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    open.push(() => {
      for (const socket of sockets) socket.destroy();
      raw.close();
    });
    const api = { url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}` };
    const ports = new MessageChannel();
    const host = serveModelChannel(portEndpoint(ports.port1), {
      agentId: 'agent-1',
      agentType: 'explore',
      baseURL: api.url,
      projectDir: '/project',
      mode: 'plan',
      audit: undefined,
    });
    open.push(() => {
      host.close();
      ports.port1.close();
      ports.port2.close();
    });
    const seen: unknown[] = [];
    ports.port2.on('message', (m: unknown) => seen.push(m));
    const response = await createHostFetch(portEndpoint(ports.port2))(`${api.url}/v1/messages`, {
      method: 'POST',
      body: '{}',
    });
    expect(await response.text()).toBe('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n');
    // One read on the host: one message, an array [head, data, end], the three chunks joined. (Were
    // the head read on its own, the body and end would still come together.)
    expect(seen.length).toBeLessThanOrEqual(2);
    const last = seen.at(-1) as { t: string }[];
    expect(Array.isArray(last)).toBe(true);
    expect(last.map((m) => m.t).slice(-2)).toEqual(['data', 'end']);
    const flat = seen.flatMap((m) => (Array.isArray(m) ? m : [m])) as { t: string }[];
    expect(flat.map((m) => m.t)).toEqual(['head', 'data', 'end']);
  });

  it("ends the host's request when the worker aborts, before or after the head", async () => {
    const api = await loopback((req, res) => {
      if (req.url?.includes('head')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: ping\n\n');
      }
    });
    const { fetch, host, audit } = channel({ baseURL: api.url });
    const early = new AbortController();
    const pending = fetch(`${api.url}/v1/none`, { method: 'POST', body: '{}', signal: early.signal });
    await until(() => api.seen.length === 1);
    early.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const late = new AbortController();
    const response = await fetch(`${api.url}/v1/head`, { method: 'POST', body: '{}', signal: late.signal });
    const reader = response.body!.getReader();
    await reader.read();
    late.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await until(() => api.closedRequests === 2);
    expect(host.active()).toBe(0);
    expect(audit.entries.map((e) => e.errorCode)).toEqual(['cancelled', 'cancelled']);
  });

  it('closes every open request when the run ends', async () => {
    const api = await loopback(() => undefined);
    const { fetch, host } = channel({ baseURL: api.url });
    const pending = fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' });
    pending.catch(() => undefined);
    await until(() => api.seen.length === 1);
    expect(host.active()).toBe(1);
    host.close();
    await until(() => api.closedRequests === 1);
    expect(host.active()).toBe(0);
  });

  it('fails a refused connection as fetch does, with the system error as the cause', async () => {
    const gone = await loopback(() => undefined);
    const url = gone.url;
    await new Promise<void>((resolve) => gone.server.close(() => resolve()));
    const { fetch } = channel({ baseURL: url });
    const failure = (await fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' }).catch(
      (e: unknown) => e,
    )) as TypeError & { cause: Error & { code?: string } };
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure.message).toBe('fetch failed');
    expect(failure.cause.code).toBe('ECONNREFUSED');
  });

  it('decodes a compressed body, as fetch does', async () => {
    const api = await loopback((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ type: 'error', error: { message: 'bad' } })));
    });
    const { fetch } = channel({ baseURL: api.url });
    const response = await fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' });
    expect(response.ok).toBe(false);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.json()).toEqual({ type: 'error', error: { message: 'bad' } });
  });

  it('reuses one connection for requests that follow each other, across runs', async () => {
    const api = await loopback((_req, res) => res.end('{}'));
    for (let run = 0; run < 3; run++) {
      const { fetch } = channel({ baseURL: api.url });
      for (let i = 0; i < 2; i++)
        await (await fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' })).text();
    }
    expect(api.seen).toHaveLength(6);
    expect(api.connections).toBe(1);
  });

  it('keeps a response the worker does not read in the socket, not in memory, and resumes as it reads', async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    const api = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (written < total) {
          written += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const { fetch } = channel({ baseURL: api.url });
    const response = await fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' });
    // Nobody reads yet: past the window (1 MiB) the host pauses, and TCP stops the server soon after.
    await new Promise((r) => setTimeout(r, 400));
    expect(written).toBeLessThan(16 * 1024 * 1024);
    let read = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) read += chunk.byteLength;
    expect(read).toBe(total);
    expect(written).toBe(total);
  });

  it('cuts off a response line longer than the cap, with the code reply_too_large', async () => {
    const api = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ping\ndata: {}\n\n');
      res.end(`data: ${'z'.repeat(3 * 1024 * 1024)}`);
    });
    const { fetch, audit } = channel({ baseURL: api.url, maxLineBytes: 1024 * 1024 });
    const response = await fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' });
    const failure = (await response.text().then(
      () => undefined,
      (e: unknown) => e,
    )) as TypeError & { cause: Error & { code?: string } };
    expect(failure.cause.code).toBe('reply_too_large');
    expect(failure.cause.message).toMatch(/longer than 1048576 bytes/);
    await until(() => audit.entries.length === 1);
    expect(audit.entries[0]).toMatchObject({ ok: false, errorCode: 'too_large' });
  });
});
