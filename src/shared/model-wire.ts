// The model channel: how a worker's model client reaches its model API. The worker has no network
// of its own; its SDK's `fetch` sends each request to the host on this channel, and the host makes
// the HTTP request (to the run's model endpoint only, with the real credentials, over connections
// shared by every run) and streams the response back.

/** Worker -> host: start an HTTP request. `id` is unique per run. */
interface ModelWireRequest {
  t: 'request';
  id: number;
  url: string;
  method: string;
  headers: [string, string][];
  body?: string;
}

/**
 * Worker -> host: the worker's client has read `bytes` more of the response body. The host keeps
 * at most a window of unread bytes in flight and pauses the response past it, so a reply that
 * arrives faster than the worker reads it waits in the socket, not in memory.
 */
interface ModelWireAck {
  t: 'ack';
  id: number;
  bytes: number;
}

/** Bytes of a response the host sends ahead of the worker's reading before it pauses. */
export const MODEL_WINDOW_BYTES = 1024 * 1024;
/** The worker acknowledges what it read once this much has gathered (and at the body's end). */
export const MODEL_ACK_BYTES = 256 * 1024;

/** Worker -> host: the worker gave up on a request (its SDK aborted it). */
interface ModelWireAbort {
  t: 'abort';
  id: number;
}

/** Host -> worker: the response's status line and headers. */
interface ModelWireHead {
  t: 'head';
  id: number;
  status: number;
  statusText: string;
  headers: [string, string][];
}

/** Host -> worker: the next bytes of the response body. */
interface ModelWireData {
  t: 'data';
  id: number;
  chunk: Uint8Array;
}

/** Host -> worker: the body ended. */
interface ModelWireEnd {
  t: 'end';
  id: number;
}

/**
 * Host -> worker: the request failed (refused by the policy, connection error, or the body broke
 * off). `code` is the system error code when there is one (`ECONNREFUSED`), or `reply_too_large`
 * when the host cut off a response line longer than the run's caps allow; `denied` marks a
 * policy refusal, which is not worth retrying.
 */
interface ModelWireError {
  t: 'error';
  id: number;
  message: string;
  code?: string;
  denied?: boolean;
}

/** Messages the worker sends. */
export type ModelWireOut = ModelWireRequest | ModelWireAbort | ModelWireAck;
/** Messages the host sends, one at a time or several in an array (in order). */
export type ModelWireIn = ModelWireHead | ModelWireData | ModelWireEnd | ModelWireError;

/**
 * What a worker's ModelConfig holds in place of an API key or token. The host swaps it for the
 * real secret in the request headers, so credentials never enter a worker (nor its transcript or
 * a crash report).
 */
export const HOST_CREDENTIAL = 'cadre-host-credential';

/** The SDK's endpoint when no base URL is configured. */
export const DEFAULT_MODEL_BASE_URL = 'https://api.anthropic.com';
