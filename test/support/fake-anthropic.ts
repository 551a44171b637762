// Loopback fake of the Anthropic Messages API (POST /v1/messages, JSON and SSE) for tests and
// benchmarks: scripted per request (queue or responder), wire-faithful SSE framing, auth and body
// validation, latency/abort/drop simulation, and a request log for assertions. node:http only.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import {
  errorBody,
  generatedFrames,
  newApiId,
  overlaps,
  renderMessageJson,
  renderMessageStart,
  renderStream,
  replyUsage,
  sseFrame,
  textReply,
  type ErrorStep,
  type ReplyBlock,
  type RequestBody,
  type Step,
} from './fake-anthropic-steps.js';

export * from './fake-anthropic-steps.js';

/** How the request authenticated. */
export interface RecordedAuth {
  via: 'x-api-key' | 'bearer' | 'none';
  key: string | null;
}

/** One logged request. Times are `performance.now()` milliseconds. */
export interface RecordedRequest {
  /** 0-based arrival index over the server's lifetime. */
  index: number;
  method: string;
  path: string;
  startedAt: number;
  /** When the response finished or the socket closed; undefined while in flight. */
  endedAt: number | undefined;
  outcome: 'pending' | 'completed' | 'client_aborted' | 'dropped';
  body: RequestBody;
  stream: boolean;
  auth: RecordedAuth;
  /** Selected request headers: anthropic-version, anthropic-beta, x-stainless-retry-count, content-type. */
  headers: Record<string, string>;
  /** Whether each sampling parameter was present in the body. */
  sampling: { temperature: boolean; top_p: boolean; top_k: boolean };
  /** The step that answered (auth/validation failures record the generated error step). */
  step: Step | undefined;
}

/** Second argument of a responder. */
export interface ResponderContext {
  /** Same as `req.index`. */
  index: number;
  /** The SDK's `x-stainless-retry-count` (0 on a first attempt). */
  retryCount: number;
  server: FakeAnthropic;
}

/** Chooses the step answering a request (used when the queue is empty). */
export type Responder = (req: RecordedRequest, ctx: ResponderContext) => Step | Promise<Step>;

/** Options of startFakeAnthropic. */
export interface FakeAnthropicOptions {
  /** Default: every request gets `textReply('ok')`. */
  responder?: Responder;
  /** Delay before the first byte of every response, unless a step sets its own `latencyMs`. */
  latencyMs?: number;
  /** When set, only this key (as x-api-key or Bearer) is accepted; others get 401 authentication_error. */
  requireKey?: string;
  /** Keep only the last N requests in `requests` (default: unbounded). */
  logLimit?: number;
}

/** A running fake server. */
export interface FakeAnthropic {
  /** Base URL for the SDK: `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Log of requests, oldest first (bounded by `logLimit`). */
  readonly requests: RecordedRequest[];
  /** Requests received so far (unaffected by `logLimit`). */
  readonly requestCount: number;
  /** Requests currently in flight. */
  readonly inFlight: number;
  /** Steps still queued. */
  readonly pending: number;
  /** Queue steps answering the next requests in order; they take precedence over the responder. */
  enqueue(...steps: Step[]): void;
  setResponder(fn: Responder): void;
  /** Highest number of requests in flight at once since start (or `clearLog`). */
  maxConcurrent(): number;
  /** `overlaps()` of the current log. */
  overlaps(): number;
  /** Empty the log and reset maxConcurrent (the queue and responder stay). */
  clearLog(): void;
  /** Resolves once `count` requests have been received in total. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves when no request is in flight. */
  idle(timeoutMs?: number): Promise<void>;
  /** Stop listening, destroy every socket, clear timers. Never hangs; idempotent. */
  close(): Promise<void>;
}

interface Exchange {
  res: ServerResponse;
  rec: RecordedRequest | undefined;
  timer: NodeJS.Timeout | undefined;
  closed: boolean;
  dropped: boolean;
}

const PICKED_HEADERS = ['anthropic-version', 'anthropic-beta', 'x-stainless-retry-count', 'content-type'];
const MIDSTREAM_STATUS: Record<string, number> = { overloaded_error: 529, rate_limit_error: 429 };
const fail = (status: number, errorType: ErrorStep['errorType'], message: string): ErrorStep => ({
  kind: 'error',
  status,
  errorType,
  message,
});

/** Start a fake Anthropic API on 127.0.0.1 (random port). */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: Step[] = [];
  let responder: Responder = options.responder ?? (() => textReply('ok'));
  const log: RecordedRequest[] = [];
  const active = new Set<Exchange>();
  const logLimit = options.logLimit ?? Infinity;
  let count = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let closing: Promise<void> | undefined;
  let waiters: { test: () => boolean; resolve: () => void }[] = [];
  const notify = () => {
    if (waiters.length > 0) waiters = waiters.filter((w) => (w.test() ? (w.resolve(), false) : true));
  };
  const waitUntil = (test: () => boolean, what: string, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      if (test()) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`fake-anthropic: timed out waiting for ${what}`)),
        timeoutMs,
      );
      timer.unref();
      waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
    });

  /** Run `fn` after `ms` (synchronously when ms <= 0), unless the exchange has closed. */
  const later = (ex: Exchange, ms: number, fn: () => void) => {
    if (ex.closed) return;
    if (ms <= 0) return fn();
    ex.timer = setTimeout(() => {
      ex.timer = undefined;
      if (!ex.closed) fn();
    }, ms);
  };
  const drop = (ex: Exchange) => {
    ex.dropped = true;
    ex.res.socket?.destroy();
  };
  const writeFrames = (ex: Exchange, frames: string[], delayMs: number, done: () => void) => {
    if (delayMs <= 0) {
      ex.res.write(frames.join(''));
      return done();
    }
    let i = 0;
    const next = () => {
      if (i >= frames.length) return done();
      ex.res.write(frames[i++]!);
      later(ex, delayMs, next);
    };
    next();
  };

  /** Writes lazily made frames as fast as the client reads them; stops when the exchange closes. */
  const pump = (ex: Exchange, frames: Iterator<string>) => {
    const next = () => {
      while (!ex.closed) {
        const frame = frames.next();
        if (frame.done) return void ex.res.end();
        if (!ex.res.write(frame.value)) return void ex.res.once('drain', next);
      }
    };
    next();
  };

  function respond(ex: Exchange, rec: RecordedRequest, step: Step, requestBytes: number): void {
    const { res } = ex;
    const requestId = newApiId('req');
    const sseHeaders = {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': requestId,
      ...step.headers,
    };
    const sendError = (status: number, type: string, message: string, extra: Record<string, string> = {}) => {
      const body = errorBody(type, message, requestId);
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': requestId,
        ...extra,
        ...step.headers,
      });
      res.end(body);
    };
    const model = ('model' in step && step.model) || rec.body.model;
    const id = newApiId('msg');
    switch (step.kind) {
      case 'error': {
        const extra: Record<string, string> = {};
        if (step.retryAfter !== undefined) extra['retry-after'] = String(step.retryAfter);
        if (step.shouldRetry !== undefined) extra['x-should-retry'] = String(step.shouldRetry);
        return sendError(step.status, step.errorType, step.message, extra);
      }
      case 'message': {
        const u = replyUsage(step, requestBytes, step.content);
        if (!rec.stream) {
          const body = JSON.stringify(renderMessageJson(id, model, step.content, step, u));
          res.writeHead(200, {
            'content-type': 'application/json',
            'request-id': requestId,
            ...step.headers,
          });
          return void res.end(body);
        }
        res.writeHead(200, sseHeaders);
        const frames = renderStream(id, model, step.content, step, u);
        return writeFrames(ex, frames, step.eventDelayMs ?? 0, () => void res.end());
      }
      case 'mid_stream_error': {
        if (!rec.stream)
          return sendError(MIDSTREAM_STATUS[step.errorType] ?? 500, step.errorType, step.message);
        const content: ReplyBlock[] = [{ type: 'text', text: step.partialText }];
        const u = replyUsage(step, requestBytes, content);
        const frames = renderStream(id, model, content, step, u).slice(0, -3); // up to the last text delta
        frames.push(
          sseFrame('error', { type: 'error', error: { type: step.errorType, message: step.message } }),
        );
        res.writeHead(200, sseHeaders);
        return writeFrames(ex, frames, step.eventDelayMs ?? 0, () => void res.end());
      }
      case 'drop': {
        if (step.afterEvents === undefined) return drop(ex);
        if (!rec.stream) {
          res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
          return void res.write('', () => drop(ex));
        }
        const u = replyUsage(step, requestBytes, step.content);
        const frames = renderStream(id, model, step.content, step, u).slice(0, step.afterEvents);
        res.writeHead(200, sseHeaders);
        return writeFrames(ex, frames, step.eventDelayMs ?? 0, () => {
          // Let the written bytes reach the socket before destroying it.
          if (!ex.closed) res.write('', () => drop(ex));
        });
      }
      case 'generated': {
        res.writeHead(200, sseHeaders);
        const u = replyUsage({}, requestBytes, []);
        return pump(ex, generatedFrames(id, model, step, u));
      }
      case 'stall': {
        if (rec.stream) {
          res.writeHead(200, sseHeaders);
          if (step.messageStart) res.write(renderMessageStart(id, model, replyUsage({}, requestBytes, [])));
        } else {
          res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
        }
        res.flushHeaders();
        if (step.ms !== undefined) later(ex, step.ms, () => drop(ex));
        return;
      }
    }
  }

  async function handle(ex: Exchange, req: IncomingMessage, startedAt: number, raw: Buffer): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const h = req.headers;
    const apiKey = typeof h['x-api-key'] === 'string' ? h['x-api-key'] : undefined;
    const bearer = /^Bearer\s+(.+)$/i.exec(h.authorization ?? '')?.[1];
    const auth: RecordedAuth =
      apiKey !== undefined
        ? { via: 'x-api-key', key: apiKey }
        : bearer !== undefined
          ? { via: 'bearer', key: bearer }
          : { via: 'none', key: null };
    const headers: Record<string, string> = {};
    for (const name of PICKED_HEADERS) {
      const v = h[name];
      if (typeof v === 'string') headers[name] = v;
    }
    let body: RequestBody;
    let parseError: string | undefined;
    try {
      body = (raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {}) as RequestBody;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    } catch {
      body = {} as RequestBody;
      parseError = 'There was an error parsing the body of your request as JSON.';
    }
    const rec: RecordedRequest = {
      index: count++,
      method: req.method ?? 'GET',
      path,
      startedAt,
      endedAt: undefined,
      outcome: 'pending',
      body,
      stream: body.stream === true,
      auth,
      headers,
      sampling: { temperature: 'temperature' in body, top_p: 'top_p' in body, top_k: 'top_k' in body },
      step: undefined,
    };
    if (logLimit > 0) {
      log.push(rec);
      if (log.length > logLimit) log.shift();
    }
    ex.rec = rec;
    notify();

    let step: Step;
    if (req.method !== 'POST' || path !== '/v1/messages') {
      step = fail(404, 'not_found_error', `Not found: ${req.method ?? ''} ${path}`);
    } else if (options.requireKey !== undefined && auth.key !== options.requireKey) {
      step = fail(
        401,
        'authentication_error',
        auth.key === null ? 'x-api-key header is required' : 'invalid x-api-key',
      );
    } else if (parseError !== undefined) {
      step = fail(400, 'invalid_request_error', parseError);
    } else if (typeof body.model !== 'string') {
      step = fail(400, 'invalid_request_error', 'model: Field required');
    } else if (typeof body.max_tokens !== 'number') {
      step = fail(400, 'invalid_request_error', 'max_tokens: Field required');
    } else if (!Array.isArray(body.messages)) {
      step = fail(400, 'invalid_request_error', 'messages: Field required');
    } else if (body.messages.length === 0) {
      step = fail(400, 'invalid_request_error', 'messages: at least one message is required');
    } else {
      const next = queue.shift();
      if (next !== undefined) {
        step = next;
      } else {
        try {
          const retryCount = Number(headers['x-stainless-retry-count'] ?? 0) || 0;
          step = await responder(rec, { index: rec.index, retryCount, server: api });
        } catch (err) {
          step = fail(500, 'api_error', `fake-anthropic responder threw: ${String(err)}`);
        }
      }
    }
    rec.step = step;
    const latency = step.latencyMs ?? options.latencyMs ?? 0;
    later(ex, latency, () => respond(ex, rec, step, raw.length));
  }

  const server = createServer({ keepAlive: true }, (req, res) => {
    const startedAt = performance.now();
    const ex: Exchange = { res, rec: undefined, timer: undefined, closed: false, dropped: false };
    active.add(ex);
    inFlight += 1;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    res.once('close', () => {
      ex.closed = true;
      if (ex.timer !== undefined) clearTimeout(ex.timer);
      if (ex.rec !== undefined) {
        ex.rec.endedAt = performance.now();
        ex.rec.outcome = ex.dropped ? 'dropped' : res.writableFinished ? 'completed' : 'client_aborted';
      }
      active.delete(ex);
      inFlight -= 1;
      notify();
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (ex.closed) return;
      handle(ex, req, startedAt, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).catch(
        (err: unknown) => {
          if (!ex.closed && !res.headersSent) {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(errorBody('api_error', `fake-anthropic internal error: ${String(err)}`, newApiId('req')));
          } else drop(ex);
        },
      );
    });
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  const api: FakeAnthropic = {
    url: `http://127.0.0.1:${port}`,
    requests: log,
    get requestCount() {
      return count;
    },
    get inFlight() {
      return inFlight;
    },
    get pending() {
      return queue.length;
    },
    enqueue: (...steps) => void queue.push(...steps),
    setResponder: (fn) => void (responder = fn),
    maxConcurrent: () => maxInFlight,
    overlaps: () => overlaps(log),
    clearLog: () => {
      log.length = 0;
      maxInFlight = inFlight;
    },
    waitForRequests: (n, timeoutMs) => waitUntil(() => count >= n, `${n} requests`, timeoutMs),
    idle: (timeoutMs) => waitUntil(() => inFlight === 0, 'idle', timeoutMs),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        for (const ex of active) {
          if (ex.timer !== undefined) clearTimeout(ex.timer);
          ex.dropped = true;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
  return api;
}
