// The host end of a run's model channel: the worker's SDK hands each HTTP request to the host,
// which asks the one policy function (the run may reach its own model endpoint only), puts the
// real credentials in place of the worker's placeholder, makes the request over keep-alive
// connections shared by every run in the process, streams the response back, and audits it.
// The worker thus holds no HTTP stack and no secret, and a new subagent reuses a warm connection.
import http from 'node:http';
import https from 'node:https';
import type { Endpoint } from '../../shared/endpoint.js';
import {
  HOST_CREDENTIAL,
  MODEL_WINDOW_BYTES,
  type ModelWireIn,
  type ModelWireOut,
} from '../../shared/model-wire.js';
import type { PermissionMode } from '../../shared/task.js';
import { decodedBody } from '../http-body.js';
import type { AuditLog } from './audit.js';
import { decide } from './policy.js';

/** Who is calling, where it may go, and the secret it may use. */
export interface ModelChannelContext {
  agentId: string;
  agentType: string;
  /** The run's model endpoint (its base URL). */
  baseURL: string;
  /** The API key or token the host puts in place of HOST_CREDENTIAL. */
  secret?: string;
  projectDir: string;
  mode: PermissionMode;
  audit: AuditLog | undefined;
  /** Called whenever response bytes arrive (the run's idle watchdog). */
  onActivity?: () => void;
  /**
   * The longest line a response may carry (bytes between newlines); past it the response is cut
   * off with the code `reply_too_large`. Default: no limit.
   */
  maxLineBytes?: number;
  /** Told of each allowed request's start, its response bytes and its end (threads started ahead). */
  observer?: ModelStreamObserver;
}

/** Watches a run's model traffic as the host relays it. */
export interface ModelStreamObserver {
  requestStarted(): void;
  /** The decoded response body, chunk by chunk. */
  chunk(bytes: Uint8Array): void;
  /** The response ended (ok: complete and not an HTTP error) or the request failed. */
  requestEnded(ok: boolean): void;
}

/** Bytes since the last line break, after `chunk`. */
function lineAfter(previous: number, chunk: Buffer): number {
  const last = Math.max(chunk.lastIndexOf(10), chunk.lastIndexOf(13));
  return last === -1 ? previous + chunk.byteLength : chunk.byteLength - last - 1;
}

/** A served model channel. */
export interface ModelChannel {
  /** Requests still open. */
  active(): number;
  /** Ends every open request and stops answering. */
  close(): void;
}

// One pool of connections per process: runs that follow each other, and the parallel children of
// one lead, reuse connections instead of paying a TCP (and TLS) handshake each.
const agents = {
  'http:': new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
  'https:': new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
};

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

function requestHeaders(pairs: unknown, secret: string | undefined): Record<string, string> {
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

function responseHeaders(raw: readonly string[], decoded: boolean): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    // A body decoded here no longer has its encoding or its length.
    if (decoded && (name === 'content-encoding' || name === 'content-length')) continue;
    out.push([name, raw[i + 1] as string]);
  }
  return out;
}

function parseRequest(message: ModelWireOut): { url: URL; method: string; body?: string } | string {
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
function joinChunks(batch: ModelWireIn[]): ModelWireIn[] {
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

/** Answers the model requests a run's worker sends on `endpoint`. */
export function serveModelChannel(endpoint: Endpoint, ctx: ModelChannelContext): ModelChannel {
  const open = new Map<
    number,
    {
      req: http.ClientRequest;
      end: (ok: boolean, code?: string, why?: string) => void;
      ack?: (bytes: number) => void;
    }
  >();
  let closed = false;
  // What one turn of the event loop has to say goes to the worker in one message, after the turn:
  // a reply that arrives in one read (head, body and end) wakes the worker once, not three times,
  // and consecutive body chunks of a request are joined into one.
  let outbox: ModelWireIn[] = [];
  const post = () => {
    const batch = outbox;
    outbox = [];
    if (closed || batch.length === 0) return;
    const messages = joinChunks(batch);
    endpoint.postMessage(messages.length === 1 ? messages[0] : messages);
  };
  const send = (message: ModelWireIn) => {
    if (closed) return;
    if (outbox.push(message) === 1) setImmediate(post);
  };

  const audit = (entry: {
    started: number;
    url: string;
    method: string;
    decision: 'allow' | 'deny';
    reason: string;
    ok: boolean;
    errorCode?: string;
  }) =>
    ctx.audit?.record({
      at: Date.now(),
      agentId: ctx.agentId,
      agentType: ctx.agentType,
      capability: 'model.request',
      args: { method: entry.method, url: entry.url },
      decision: entry.decision,
      reason: entry.reason,
      durationMs: performance.now() - entry.started,
      ok: entry.ok,
      ...(entry.errorCode ? { errorCode: entry.errorCode } : {}),
    });

  const start = (message: Extract<ModelWireOut, { t: 'request' }>) => {
    const id = message.id;
    const started = performance.now();
    const parsed = parseRequest(message);
    if (typeof parsed === 'string') {
      send({ t: 'error', id, message: `model.request refused: ${parsed}`, denied: true });
      audit({
        started,
        url: String(message.url),
        method: String(message.method),
        decision: 'deny',
        reason: parsed,
        ok: false,
        errorCode: 'invalid_input',
      });
      return;
    }
    const verdict = decide({
      capability: 'model.request',
      url: parsed.url.href,
      modelEndpoint: ctx.baseURL,
      projectDir: ctx.projectDir,
      mode: ctx.mode,
    });
    if (verdict.decision !== 'allow') {
      send({ t: 'error', id, message: verdict.reason, denied: true });
      audit({
        started,
        url: parsed.url.href,
        method: parsed.method,
        decision: 'deny',
        reason: verdict.reason,
        ok: false,
        errorCode: verdict.code ?? 'not_granted',
      });
      return;
    }
    const transport = parsed.url.protocol === 'https:' ? https : http;
    const headers = requestHeaders(message.headers, ctx.secret);
    if (parsed.body !== undefined) headers['content-length'] = String(Buffer.byteLength(parsed.body));
    let status = 0;
    let finished = false;
    const end = (ok: boolean, errorCode?: string, why?: string) => {
      if (finished) return;
      finished = true;
      open.delete(id);
      ctx.observer?.requestEnded(ok);
      audit({
        started,
        url: parsed.url.href,
        method: parsed.method,
        decision: 'allow',
        reason: why ?? `${verdict.reason}; HTTP ${status}`,
        ok,
        ...(errorCode ? { errorCode } : {}),
      });
    };
    const req = transport.request(parsed.url, {
      method: parsed.method,
      headers,
      agent: agents[parsed.url.protocol as keyof typeof agents],
    });
    open.set(id, { req, end });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Before the head: the connection failed. After it, the body's own error handler reports.
      if (status !== 0 || finished) return;
      send({ t: 'error', id, message: error.message, ...(error.code ? { code: error.code } : {}) });
      end(false, 'model_error', error.message);
    });
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      const { body, decoded } = decodedBody(res);
      send({
        t: 'head',
        id,
        status,
        statusText: res.statusMessage ?? '',
        headers: responseHeaders(res.rawHeaders, decoded),
      });
      // Flow control: past a window of bytes the worker has not read yet, the response waits in
      // the socket (TCP pushes back on the server) until the worker's acknowledgements catch up.
      let unread = 0;
      let line = 0;
      const entry = open.get(id);
      if (entry)
        entry.ack = (bytes) => {
          unread = Math.max(0, unread - bytes);
          if (body.isPaused() && unread <= MODEL_WINDOW_BYTES / 2) body.resume();
        };
      body.on('data', (chunk: Buffer) => {
        if (finished) return;
        ctx.onActivity?.();
        line = lineAfter(line, chunk);
        if (ctx.maxLineBytes !== undefined && line > ctx.maxLineBytes) {
          const why = `the model's response has a line longer than ${ctx.maxLineBytes} bytes (the run's reply caps allow no more); the response was cut off`;
          send({ t: 'error', id, message: why, code: 'reply_too_large' });
          end(false, 'too_large', why);
          req.destroy();
          return;
        }
        ctx.observer?.chunk(chunk);
        send({ t: 'data', id, chunk: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) });
        unread += chunk.byteLength;
        if (unread > MODEL_WINDOW_BYTES) body.pause();
      });
      body.on('end', () => {
        send({ t: 'end', id });
        end(status < 400);
      });
      const broke = (why: string) => {
        if (finished) return;
        send({ t: 'error', id, message: why });
        end(false, 'model_error', `HTTP ${status}; the body broke off: ${why}`);
      };
      body.on('error', (error: Error) => broke(error.message));
      res.on('aborted', () => broke('the server closed the connection mid-response'));
      res.on('close', () => {
        if (!res.complete) broke('the server closed the connection mid-response');
      });
    });
    req.end(parsed.body);
    // After the request is on its way: what the observer starts (threads) must not delay it.
    const observer = ctx.observer;
    if (observer)
      setImmediate(() => {
        if (!finished) observer.requestStarted();
      });
  };

  const onMessage = (event: { data: unknown }) => {
    const message = event.data as ModelWireOut | null;
    if (closed || message === null || typeof message !== 'object' || typeof message.id !== 'number') return;
    if (message.t === 'request') {
      if (open.has(message.id)) return;
      start(message);
    } else if (message.t === 'ack') {
      if (typeof message.bytes === 'number' && Number.isFinite(message.bytes))
        open.get(message.id)?.ack?.(message.bytes);
    } else if (message.t === 'abort') {
      const request = open.get(message.id);
      request?.end(false, 'cancelled', 'the model client aborted the request');
      request?.req.destroy();
    }
  };
  endpoint.addEventListener('message', onMessage);
  endpoint.start?.();

  return {
    active: () => open.size,
    close() {
      if (closed) return;
      closed = true;
      endpoint.removeEventListener('message', onMessage);
      for (const request of [...open.values()]) {
        request.end(false, 'cancelled', 'the run ended before the response did');
        request.req.destroy();
      }
    },
  };
}
