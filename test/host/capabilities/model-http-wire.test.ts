// The model channel's pure pieces and its batching outbox, on their own: which headers go upstream
// (credential swapped in, framing dropped), which come back, what a request may say, how body
// chunks of one request are joined, and how the current line's length is kept across chunks.
import { describe, expect, it } from 'vitest';
import { modelOutbox } from '../../../src/host/capabilities/model-http-outbox.js';
import {
  joinChunks,
  lineAfter,
  parseModelRequest,
  requestHeaders,
  responseHeaders,
} from '../../../src/host/capabilities/model-http-wire.js';
import type { Endpoint } from '../../../src/shared/endpoint.js';
import { HOST_CREDENTIAL, type ModelWireIn } from '../../../src/shared/model-wire.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const request = (over: Record<string, unknown>) =>
  ({
    t: 'request',
    id: 1,
    url: 'https://api.example/v1/messages',
    method: 'POST',
    headers: [],
    ...over,
  }) as never;

describe('requestHeaders', () => {
  it('swaps the placeholder for the secret, lowercases names, joins repeats and drops framing headers', () => {
    const headers = requestHeaders(
      [
        ['X-Api-Key', HOST_CREDENTIAL],
        ['Authorization', `Bearer ${HOST_CREDENTIAL}`],
        ['Accept', 'a'],
        ['accept', 'b'],
        ['Host', 'evil.example'],
        ['Content-Length', '999'],
        ['Transfer-Encoding', 'chunked'],
        ['Connection', 'close'],
      ],
      'sk-real',
    );
    expect(headers).toEqual({ 'x-api-key': 'sk-real', authorization: 'Bearer sk-real', accept: 'a, b' });
  });

  it('skips malformed pairs and leaves the placeholder when there is no secret', () => {
    expect(requestHeaders('nope', 's')).toEqual({});
    expect(requestHeaders([['a', 1], ['b'], 'c', ['x-api-key', HOST_CREDENTIAL]], undefined)).toEqual({
      'x-api-key': HOST_CREDENTIAL,
    });
  });
});

describe('responseHeaders', () => {
  it('pairs raw headers, and drops encoding and length of a body decoded on the host', () => {
    const raw = ['Content-Type', 'text/event-stream', 'Content-Encoding', 'gzip', 'Content-Length', '10'];
    expect(responseHeaders(raw, false)).toEqual([
      ['content-type', 'text/event-stream'],
      ['content-encoding', 'gzip'],
      ['content-length', '10'],
    ]);
    expect(responseHeaders(raw, true)).toEqual([['content-type', 'text/event-stream']]);
  });
});

describe('parseModelRequest', () => {
  it('takes GET and POST to a URL with a text body', () => {
    const parsed = parseModelRequest(request({ method: 'post', body: '{}' }));
    expect(parsed).toMatchObject({ method: 'POST', body: '{}' });
    expect(typeof parsed === 'string' ? parsed : parsed.url.href).toBe('https://api.example/v1/messages');
  });

  it('says why it refuses anything else', () => {
    expect(parseModelRequest({ t: 'ack', id: 1, bytes: 1 })).toBe('not a request');
    expect(parseModelRequest(request({ url: 'not a url' }))).toMatch(/is not a URL/);
    expect(parseModelRequest(request({ method: 'DELETE' }))).toMatch(/method DELETE is not used/);
    expect(parseModelRequest(request({ body: 42 }))).toBe('the body must be text');
  });
});

describe('joinChunks', () => {
  it('joins consecutive data chunks of one request, in order, and nothing else', () => {
    const batch: ModelWireIn[] = [
      { t: 'head', id: 1, status: 200, statusText: 'OK', headers: [] },
      { t: 'data', id: 1, chunk: bytes('ab') },
      { t: 'data', id: 1, chunk: bytes('cd') },
      { t: 'data', id: 2, chunk: bytes('x') },
      { t: 'data', id: 1, chunk: bytes('e') },
      { t: 'end', id: 1 },
    ];
    const joined = joinChunks(batch);
    expect(joined.map((m) => m.t)).toEqual(['head', 'data', 'data', 'data', 'end']);
    const text = (m: ModelWireIn | undefined) =>
      m?.t === 'data' ? new TextDecoder().decode(m.chunk) : undefined;
    expect([text(joined[1]), text(joined[2]), text(joined[3])]).toEqual(['abcd', 'x', 'e']);
    expect(joined[3]).toBe(batch[4]);
  });
});

describe('lineAfter', () => {
  it('counts bytes since the last CR or LF, across chunks', () => {
    expect(lineAfter(0, Buffer.from('abc'))).toBe(3);
    expect(lineAfter(3, Buffer.from('de'))).toBe(5);
    expect(lineAfter(5, Buffer.from('x\ny'))).toBe(1);
    expect(lineAfter(1, Buffer.from('zz\r'))).toBe(0);
  });
});

describe('modelOutbox', () => {
  function endpoint(): Endpoint & { posted: unknown[] } {
    const posted: unknown[] = [];
    return {
      posted,
      postMessage: (message) => void posted.push(message),
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('posts what one turn sent as one message after the turn (one alone, several as an array)', async () => {
    const port = endpoint();
    const outbox = modelOutbox(port);
    outbox.send({ t: 'end', id: 1 });
    expect(port.posted).toEqual([]);
    await turn();
    expect(port.posted).toEqual([{ t: 'end', id: 1 }]);
    outbox.send({ t: 'data', id: 2, chunk: bytes('a') });
    outbox.send({ t: 'data', id: 2, chunk: bytes('b') });
    outbox.send({ t: 'end', id: 2 });
    await turn();
    expect(port.posted).toHaveLength(2);
    expect(port.posted[1]).toEqual([
      { t: 'data', id: 2, chunk: bytes('ab') },
      { t: 'end', id: 2 },
    ]);
  });

  it('drops what is queued, and anything later, once closed', async () => {
    const port = endpoint();
    const outbox = modelOutbox(port);
    outbox.send({ t: 'end', id: 1 });
    outbox.close();
    outbox.send({ t: 'end', id: 2 });
    await turn();
    expect(port.posted).toEqual([]);
  });
});
