// One model request relayed for a run: admitted by the one policy function (the run may reach its
// own model endpoint only; a request the policy would ask about is refused, since no person is
// asked about model traffic), sent with the real credential over the process's keep-alive
// connections, its response streamed back with flow control and a line cap, and audited through
// the shared audit step (effect-context.ts) once it ends, however it ends.
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { MODEL_WINDOW_BYTES, type ModelWireIn, type ModelWireOut } from '../../shared/model-wire.js';
import type { PermissionMode } from '../../shared/task.js';
import { decodedBody } from '../http-body.js';
import type { AuditLog } from './audit.js';
import { auditCall, type CallAudit, type CallEnd } from './effect-context.js';
import {
  lineAfter,
  parseModelRequest,
  requestHeaders,
  responseHeaders,
  type ModelRequest,
} from './model-http-wire.js';
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

/** A request in flight. */
export interface ModelExchange {
  readonly id: number;
  readonly req: http.ClientRequest;
  /** The response's status (0 until its head arrives). */
  status: number;
  finished: boolean;
  /** Ends the exchange once: unlisted, observed and audited. */
  end(ok: boolean, errorCode?: string, why?: string): void;
  /** Takes the worker's acknowledgement of `bytes` read (set once the body flows). */
  ack?: (bytes: number) => void;
}

/** What the requests of one channel share. */
export interface RelayScope {
  ctx: ModelChannelContext;
  open: Map<number, ModelExchange>;
  send: (message: ModelWireIn) => void;
}

// One pool of connections per process: runs that follow each other, and the parallel children of
// one lead, reuse connections instead of paying a TCP (and TLS) handshake each.
const agents = {
  'http:': new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
  'https:': new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
};

type RequestMessage = Extract<ModelWireOut, { t: 'request' }>;

/** One model.request audit line, through the shared audit step. */
function auditRequest(
  scope: RelayScope,
  target: { method: string; url: string },
  decision: 'allow' | 'deny',
  startedMs: number,
  end: CallEnd,
): void {
  const call: CallAudit = { decision };
  auditCall(scope.ctx, 'model.request', { method: target.method, url: target.url }, call, startedMs, end);
}

/** The request checked and judged; refused ones are answered, audited, and undefined. */
function admit(
  scope: RelayScope,
  message: RequestMessage,
  startedMs: number,
): { request: ModelRequest; reason: string } | undefined {
  const { id } = message;
  const request = parseModelRequest(message);
  if (typeof request === 'string') {
    scope.send({ t: 'error', id, message: `model.request refused: ${request}`, denied: true });
    const target = { method: String(message.method), url: String(message.url) };
    auditRequest(scope, target, 'deny', startedMs, {
      reason: request,
      ok: false,
      errorCode: 'invalid_input',
    });
    return undefined;
  }
  const { ctx } = scope;
  const verdict = decide({
    capability: 'model.request',
    url: request.url.href,
    modelEndpoint: ctx.baseURL,
    projectDir: ctx.projectDir,
    mode: ctx.mode,
  });
  if (verdict.decision !== 'allow') {
    scope.send({ t: 'error', id, message: verdict.reason, denied: true });
    const target = { method: request.method, url: request.url.href };
    const end = { reason: verdict.reason, ok: false, errorCode: verdict.code ?? 'not_granted' };
    auditRequest(scope, target, 'deny', startedMs, end);
    return undefined;
  }
  return { request, reason: verdict.reason };
}

/** Relays the worker's request `message`: admitted, sent upstream, and its response streamed back. */
export function relayRequest(scope: RelayScope, message: RequestMessage): void {
  const started = performance.now();
  const admitted = admit(scope, message, started);
  if (!admitted) return;
  const { request, reason } = admitted;
  const { ctx } = scope;
  const headers = requestHeaders(message.headers, ctx.secret);
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  const transport = request.url.protocol === 'https:' ? https : http;
  const req = transport.request(request.url, {
    method: request.method,
    headers,
    agent: agents[request.url.protocol as keyof typeof agents],
  });
  const exchange: ModelExchange = {
    id: message.id,
    req,
    status: 0,
    finished: false,
    end(ok, errorCode, why) {
      if (exchange.finished) return;
      exchange.finished = true;
      scope.open.delete(exchange.id);
      ctx.observer?.requestEnded(ok);
      const end = {
        reason: why ?? `${reason}; HTTP ${exchange.status}`,
        ok,
        ...(errorCode ? { errorCode } : {}),
      };
      auditRequest(scope, { method: request.method, url: request.url.href }, 'allow', started, end);
    },
  };
  scope.open.set(exchange.id, exchange);
  req.on('error', (error: NodeJS.ErrnoException) => {
    // Before the head: the connection failed. After it, the body's own error handler reports.
    if (exchange.status !== 0 || exchange.finished) return;
    scope.send({
      t: 'error',
      id: exchange.id,
      message: error.message,
      ...(error.code ? { code: error.code } : {}),
    });
    exchange.end(false, 'model_error', error.message);
  });
  req.on('response', (res) => relayResponse(scope, exchange, res));
  req.end(request.body);
  // After the request is on its way: what the observer starts (threads) must not delay it.
  const observer = ctx.observer;
  if (observer)
    setImmediate(() => {
      if (!exchange.finished) observer.requestStarted();
    });
}

/** Streams a response back: its head, its body (pipeBody), and how it ended. */
function relayResponse(scope: RelayScope, exchange: ModelExchange, res: http.IncomingMessage): void {
  const { id } = exchange;
  exchange.status = res.statusCode ?? 0;
  const { body, decoded } = decodedBody(res);
  scope.send({
    t: 'head',
    id,
    status: exchange.status,
    statusText: res.statusMessage ?? '',
    headers: responseHeaders(res.rawHeaders, decoded),
  });
  pipeBody(scope, exchange, body);
  body.on('end', () => {
    scope.send({ t: 'end', id });
    exchange.end(exchange.status < 400);
  });
  const broke = (why: string) => {
    if (exchange.finished) return;
    scope.send({ t: 'error', id, message: why });
    exchange.end(false, 'model_error', `HTTP ${exchange.status}; the body broke off: ${why}`);
  };
  body.on('error', (error: Error) => broke(error.message));
  res.on('aborted', () => broke('the server closed the connection mid-response'));
  res.on('close', () => {
    if (!res.complete) broke('the server closed the connection mid-response');
  });
}

/**
 * Sends the body on, chunk by chunk, under flow control: past a window of bytes the worker has not
 * read yet, the response waits in the socket (TCP pushes back on the server) until the worker's
 * acknowledgements catch up. A line longer than the run's cap cuts the response off.
 */
function pipeBody(scope: RelayScope, exchange: ModelExchange, body: Readable): void {
  const { ctx } = scope;
  const { id } = exchange;
  let unread = 0;
  let line = 0;
  const entry = scope.open.get(id);
  if (entry)
    entry.ack = (bytes) => {
      unread = Math.max(0, unread - bytes);
      if (body.isPaused() && unread <= MODEL_WINDOW_BYTES / 2) body.resume();
    };
  body.on('data', (chunk: Buffer) => {
    if (exchange.finished) return;
    ctx.onActivity?.();
    line = lineAfter(line, chunk);
    if (ctx.maxLineBytes !== undefined && line > ctx.maxLineBytes) {
      const why = `the model's response has a line longer than ${ctx.maxLineBytes} bytes (the run's reply caps allow no more); the response was cut off`;
      scope.send({ t: 'error', id, message: why, code: 'reply_too_large' });
      exchange.end(false, 'too_large', why);
      exchange.req.destroy();
      return;
    }
    ctx.observer?.chunk(chunk);
    scope.send({ t: 'data', id, chunk: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) });
    unread += chunk.byteLength;
    if (unread > MODEL_WINDOW_BYTES) body.pause();
  });
}
