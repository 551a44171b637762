// The model client's `fetch`: each request goes to the host on the run's model channel, and the
// host makes it (see src/host/capabilities/model-http.ts). The worker thus needs no HTTP stack of
// its own: Node's fetch (undici) costs every thread about 45 ms of CPU and 6 MB to load and
// connect, and the host's connections are shared by all runs. Responses come back as a small
// Response look-alike that the SDK reads like the real one (status, headers, a streaming body).
import type { Endpoint } from '../../shared/endpoint.js';
import { MODEL_ACK_BYTES, type ModelWireIn, type ModelWireOut } from '../../shared/model-wire.js';
import { HostBody } from './host-body.js';
import { Headers } from './web-headers.js';

/** `fetch` init fields this transport reads, plus a hook called for every body chunk. */
export interface HostFetchInit {
  method?: string;
  headers?: unknown;
  body?: unknown;
  signal?: AbortSignal | null;
  /** Called whenever response bytes arrive (idle watchdogs). */
  onBytes?: () => void;
}

/** A `fetch` over the model channel. */
export type HostFetch = (input: string | URL | { url: string }, init?: HostFetchInit) => Promise<Response>;

/** The response the SDK reads: the parts of the standard Response it uses. */
class HostResponse {
  readonly type = 'basic';
  readonly redirected = false;
  #used = false;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    readonly body: HostBody,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#used) throw new TypeError('the response body was already read');
    this.#used = true;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.body) {
      chunks.push(chunk);
      size += chunk.byteLength;
    }
    const out = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    return out.buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
}

/** What fetch rejects with when its signal fires, as the standard says. */
function abortError(): Error {
  return new DOMException('This operation was aborted', 'AbortError');
}

/** The reason the host gave for a broken body, with its code (`reply_too_large`, say). */
function causeOf(message: Extract<ModelWireIn, { t: 'error' }>): Error {
  return Object.assign(new Error(message.message), message.code === undefined ? {} : { code: message.code });
}

/** A failure before the response head, shaped like Node's own fetch failures (`cause` holds the reason). */
function fetchFailed(message: string, code: string | undefined): TypeError {
  const cause = Object.assign(new Error(message), code === undefined ? {} : { code });
  return new TypeError('fetch failed', { cause });
}

function headerPairs(headers: unknown): [string, string][] {
  if (headers === undefined || headers === null) return [];
  return [...new Headers(headers as ConstructorParameters<typeof Headers>[0])];
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
  throw new TypeError('the model channel sends text bodies only');
}

interface InFlight {
  onMessage(message: ModelWireIn): void;
}

/** A fetch that sends every request over `endpoint` to the host. */
export function createHostFetch(endpoint: Endpoint): HostFetch {
  const inFlight = new Map<number, InFlight>();
  let nextId = 1;
  const deliver = (message: ModelWireIn | null) => {
    if (message === null || typeof message !== 'object' || typeof message.id !== 'number') return;
    inFlight.get(message.id)?.onMessage(message);
  };
  endpoint.addEventListener('message', (event) => {
    if (Array.isArray(event.data)) for (const message of event.data as ModelWireIn[]) deliver(message);
    else deliver(event.data as ModelWireIn | null);
  });
  endpoint.start?.();
  const send = (message: ModelWireOut) => endpoint.postMessage(message);

  return (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(abortError());
    let request: ModelWireOut;
    try {
      const body = bodyText(init.body);
      request = {
        t: 'request',
        id: nextId++,
        url,
        method: (init.method ?? 'GET').toUpperCase(),
        headers: headerPairs(init.headers),
        ...(body === undefined ? {} : { body }),
      };
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const id = request.id;

    return new Promise<Response>((resolve, reject) => {
      let body: HostBody | undefined;
      const finish = () => {
        inFlight.delete(id);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        finish();
        send({ t: 'abort', id });
        if (body) body.fail(abortError());
        else reject(abortError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      inFlight.set(id, {
        onMessage(message) {
          switch (message.t) {
            case 'head': {
              if (body) return;
              // What the client has read goes back to the host in steps, so the host keeps sending.
              let unacked = 0;
              const onRead = (bytes: number) => {
                unacked += bytes;
                if (unacked < MODEL_ACK_BYTES) return;
                send({ t: 'ack', id, bytes: unacked });
                unacked = 0;
              };
              body = new HostBody(() => {
                finish();
                send({ t: 'abort', id });
              }, onRead);
              resolve(
                new HostResponse(
                  url,
                  message.status,
                  message.statusText,
                  new Headers(message.headers),
                  body,
                ) as unknown as Response,
              );
              return;
            }
            case 'data':
              init.onBytes?.();
              body?.push(message.chunk);
              return;
            case 'end':
              finish();
              body?.end();
              return;
            case 'error':
              finish();
              if (body) body.fail(new TypeError('terminated', { cause: causeOf(message) }));
              else reject(fetchFailed(message.message, message.code));
              return;
          }
        },
      });
      send(request);
    });
  };
}
