// The pure pieces of the model channel's wire (model-http.ts): what a worker's request may say,
// which of its headers go on (the credential placeholder replaced), which response headers come
// back, how body chunks are batched, and how long the current line of a streamed response is.
import type { ModelWireIn, ModelWireOut } from '../../shared/model-wire.js';
import { HOST_CREDENTIAL } from '../../shared/model-wire.js';

/** Bytes since the last line break, after `chunk`. */
export function lineAfter(previous: number, chunk: Buffer): number {
  const last = Math.max(chunk.lastIndexOf(10), chunk.lastIndexOf(13));
  return last === -1 ? previous + chunk.byteLength : chunk.byteLength - last - 1;
}

// Set by Node per connection, or meaningless once the body is re-framed here.
const DROPPED_REQUEST_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
]);

/** The request's headers as sent upstream: framing headers dropped, the placeholder replaced by `secret`. */
export function requestHeaders(pairs: unknown, secret: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(pairs)) return out;
  for (const pair of pairs) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') continue;
    const name = pair[0].toLowerCase();
    if (DROPPED_REQUEST_HEADERS.has(name)) continue;
    const value = secret === undefined ? pair[1] : pair[1].replaceAll(HOST_CREDENTIAL, secret);
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

/** A response's headers as the worker gets them (a body decoded here loses its encoding and length). */
export function responseHeaders(raw: readonly string[], decoded: boolean): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    // A body decoded here no longer has its encoding or its length.
    if (decoded && (name === 'content-encoding' || name === 'content-length')) continue;
    out.push([name, raw[i + 1] as string]);
  }
  return out;
}

/** A worker's model request, checked: an http(s) URL, GET or POST, a text body. */
export interface ModelRequest {
  url: URL;
  method: string;
  body?: string;
}

/** Checks a worker's request message; a string says why it is refused. */
export function parseModelRequest(message: ModelWireOut): ModelRequest | string {
  if (message.t !== 'request') return 'not a request';
  let url: URL;
  try {
    url = new URL(String(message.url));
  } catch {
    return `"${String(message.url).slice(0, 100)}" is not a URL`;
  }
  const method = String(message.method).toUpperCase();
  if (method !== 'GET' && method !== 'POST')
    return `method ${method.slice(0, 20)} is not used by model clients`;
  if (message.body !== undefined && typeof message.body !== 'string') return 'the body must be text';
  return { url, method, ...(message.body === undefined ? {} : { body: message.body }) };
}

/** Joins each run of consecutive body chunks of one request into one chunk. */
export function joinChunks(batch: ModelWireIn[]): ModelWireIn[] {
  const out: ModelWireIn[] = [];
  for (let i = 0; i < batch.length;) {
    const first = batch[i] as ModelWireIn;
    if (first.t !== 'data') {
      out.push(first);
      i++;
      continue;
    }
    let j = i;
    let size = 0;
    for (; j < batch.length; j++) {
      const m = batch[j] as ModelWireIn;
      if (m.t !== 'data' || m.id !== first.id) break;
      size += m.chunk.byteLength;
    }
    if (j === i + 1) {
      out.push(first);
      i = j;
      continue;
    }
    const chunk = new Uint8Array(size);
    let at = 0;
    for (let k = i; k < j; k++) {
      const part = (batch[k] as Extract<ModelWireIn, { t: 'data' }>).chunk;
      chunk.set(part, at);
      at += part.byteLength;
    }
    out.push({ t: 'data', id: first.id, chunk });
    i = j;
  }
  return out;
}
