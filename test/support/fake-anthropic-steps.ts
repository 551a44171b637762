// Script vocabulary for the fake Anthropic server: the Step union, the step builders (textReply,
// toolUseReply, errorReply, midStreamError, dropConnection, stallAfterHeaders), the pure wire
// rendering of replies (Message JSON, SSE frames, error bodies), request-inspection helpers for
// responders, and overlaps(). No I/O, no test-framework imports.

import { randomBytes } from 'node:crypto';

/** Why a reply stopped, as the Messages API reports it in `stop_reason`. */
export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/** The `error.type` values of the Messages API error body. */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'api_error'
  | 'overloaded_error';

/** Token counts for a reply; anything left out is derived (input from request size, output from reply size). */
export interface UsageSpec {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** A content block of a scripted reply. */
export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string; signature: string };

/** Options every step accepts. */
export interface CommonOptions {
  /** Delay before the first byte (overrides the server-wide `latencyMs`). */
  latencyMs?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** Options of steps that stream (part of) a message. */
export interface ReplyOptions extends CommonOptions {
  /** Default `end_turn` (or `tool_use` when the reply has tool_use blocks). */
  stopReason?: StopReason;
  /** Reported `stop_sequence` (set it with `stopReason: 'stop_sequence'`). */
  stopSequence?: string | null;
  usage?: UsageSpec;
  /** Model reported in the reply; default: the request's `model`, echoed. */
  model?: string;
  /** Deltas per text/tool_use block when streaming (default 3, fewer for short content). */
  chunks?: number;
  /** Delay between SSE events (default 0: the whole stream is written at once). */
  eventDelayMs?: number;
}

/** A successful reply: a Message JSON, or its SSE stream when the request has `stream: true`. */
export interface MessageStep extends ReplyOptions {
  kind: 'message';
  content: ReplyBlock[];
}

/** An HTTP error response with the real error body `{type:'error', error:{type, message}, request_id}`. */
export interface ErrorStep extends CommonOptions {
  kind: 'error';
  status: number;
  errorType: ApiErrorType;
  message: string;
  /** Seconds, sent as the `retry-after` header (fractions allowed, to keep tests fast). */
  retryAfter?: number;
  /** Sent as the `x-should-retry` header. */
  shouldRetry?: boolean;
}

/** A 200 stream that sends some text deltas then an SSE `event: error` and ends. */
export interface MidStreamErrorStep extends ReplyOptions {
  kind: 'mid_stream_error';
  partialText: string;
  errorType: ApiErrorType;
  message: string;
}

/** Destroy the socket: before the headers (`afterEvents` undefined) or after N SSE events of `content`. */
export interface DropStep extends ReplyOptions {
  kind: 'drop';
  afterEvents?: number;
  content: ReplyBlock[];
}

/** Send 200 headers (and optionally message_start), then nothing until the client aborts or `ms` elapses (then drop). */
export interface StallStep extends CommonOptions {
  kind: 'stall';
  ms?: number;
  messageStart: boolean;
}

/**
 * A reply generated as it is sent, never held whole: `chars` characters of text (or of one tool
 * call's JSON input) in deltas of `deltaChars`, written as fast as the client reads them. For
 * replies of hundreds of MB. `shape: 'one_line'` sends the whole text in a single SSE event line.
 */
export interface GeneratedStep extends CommonOptions {
  kind: 'generated';
  chars: number;
  shape: 'text' | 'tool_input' | 'one_line';
  /** Characters per delta (default 16,384). */
  deltaChars?: number;
}

/** One scripted response. */
export type Step = MessageStep | ErrorStep | MidStreamErrorStep | DropStep | StallStep | GeneratedStep;

let toolCounter = 0;

/** A fresh `toolu_01...` id. */
export function toolUseId(): string {
  toolCounter += 1;
  return `toolu_01Fake${toolCounter.toString(36).padStart(16, '0')}`;
}

/** A reply made of arbitrary content blocks. */
export function messageReply(content: ReplyBlock[], opts: ReplyOptions = {}): MessageStep {
  return { ...opts, kind: 'message', content };
}

/** A plain text reply (stop_reason `end_turn` unless `opts.stopReason`). */
export function textReply(text: string, opts: ReplyOptions = {}): MessageStep {
  return messageReply([{ type: 'text', text }], opts);
}

/** A tool call to script: the id defaults to a fresh `toolu_...`. */
export interface ToolCallSpec {
  name: string;
  input: unknown;
  id?: string;
}

/** A reply with tool_use blocks (optionally preceded by `opts.text`); stop_reason `tool_use`. */
export function toolUseReply(
  calls: ToolCallSpec[],
  opts: ReplyOptions & { text?: string } = {},
): MessageStep {
  const { text, ...rest } = opts;
  const blocks: ReplyBlock[] = text === undefined ? [] : [{ type: 'text', text }];
  for (const c of calls)
    blocks.push({ type: 'tool_use', id: c.id ?? toolUseId(), name: c.name, input: c.input });
  return messageReply(blocks, { stopReason: 'tool_use', ...rest });
}

const ERROR_DEFAULTS: Record<number, [ApiErrorType, string]> = {
  400: ['invalid_request_error', 'Invalid request'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not found'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  500: ['api_error', 'Internal server error'],
  504: ['timeout_error', 'Request timed out'],
  529: ['overloaded_error', 'Overloaded'],
};

/** HTTP error reply; `type`/`message` default from the status (429 rate_limit_error, 529 overloaded_error, ...). */
export function errorReply(
  status: number,
  opts: CommonOptions & {
    type?: ApiErrorType;
    message?: string;
    retryAfter?: number;
    shouldRetry?: boolean;
  } = {},
): ErrorStep {
  const { type, message, ...rest } = opts;
  const [defType, defMessage] =
    ERROR_DEFAULTS[status] ?? (status >= 500 ? ERROR_DEFAULTS[500]! : ERROR_DEFAULTS[400]!);
  return { ...rest, kind: 'error', status, errorType: type ?? defType, message: message ?? defMessage };
}

/** A stream that delivers `partialText` as text deltas then an SSE `error` event (default overloaded_error). */
export function midStreamError(
  partialText: string,
  errorType: ApiErrorType = 'overloaded_error',
  opts: ReplyOptions & { message?: string } = {},
): MidStreamErrorStep {
  const { message, ...rest } = opts;
  const fallback =
    Object.values(ERROR_DEFAULTS).find(([t]) => t === errorType)?.[1] ?? 'Internal server error';
  return { ...rest, kind: 'mid_stream_error', partialText, errorType, message: message ?? fallback };
}

/** Destroy the connection before the headers (no argument) or after `afterEvents` SSE events of a text reply. */
export function dropConnection(afterEvents?: number, opts: ReplyOptions & { text?: string } = {}): DropStep {
  const { text, ...rest } = opts;
  const content: ReplyBlock[] = [
    { type: 'text', text: text ?? 'This reply never finishes because the connection drops.' },
  ];
  return afterEvents === undefined
    ? { ...rest, kind: 'drop', content }
    : { ...rest, kind: 'drop', afterEvents, content };
}

/** Send headers (+ message_start unless `messageStart: false`) then go silent until the client aborts, or drop after `ms`. */
export function stallAfterHeaders(
  ms?: number,
  opts: CommonOptions & { messageStart?: boolean } = {},
): StallStep {
  const { messageStart, ...rest } = opts;
  const step: StallStep = { ...rest, kind: 'stall', messageStart: messageStart ?? true };
  if (ms !== undefined) step.ms = ms;
  return step;
}

/** A reply of `chars` characters generated while it streams (see GeneratedStep). */
export function generatedReply(
  chars: number,
  opts: CommonOptions & { shape?: GeneratedStep['shape']; deltaChars?: number } = {},
): GeneratedStep {
  const { shape, ...rest } = opts;
  return { ...rest, kind: 'generated', chars, shape: shape ?? 'text' };
}

// ---------- wire rendering (shapes of the real Messages API) ----------

const ID_PREFIX = randomBytes(6).toString('hex');
let idCounter = 0;
/** A fresh API-style id such as `msg_01...` or `req_01...`. */
export const newApiId = (prefix: string): string =>
  `${prefix}_01${ID_PREFIX}${(++idCounter).toString(36).padStart(10, '0')}`;
const tokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4));
/** One SSE frame: `event: NAME\ndata: JSON\n\n`. */
export const sseFrame = (event: string, data: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const PING = sseFrame('ping', { type: 'ping' });

function split(text: string, parts: number): string[] {
  const n = Math.max(1, Math.min(parts, text.length));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

function blockChars(block: ReplyBlock): number {
  if (block.type === 'text') return block.text.length;
  if (block.type === 'thinking') return block.thinking.length;
  return JSON.stringify(block.input ?? {}).length + block.name.length;
}

/** Usage numbers of a reply: scripted values win, the rest derive from request/reply sizes. */
export function replyUsage(opts: ReplyOptions, requestBytes: number, content: ReplyBlock[]) {
  const u = opts.usage ?? {};
  return {
    input: u.input_tokens ?? tokens(requestBytes),
    output: u.output_tokens ?? tokens(content.reduce((n, b) => n + blockChars(b), 0)),
    cacheRead: u.cache_read_input_tokens ?? 0,
    cacheCreation: u.cache_creation_input_tokens ?? 0,
  };
}

/** Resolved token counts of a reply. */
export type UsageNums = ReturnType<typeof replyUsage>;

function fullUsage(u: UsageNums, outputTokens: number) {
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheCreation,
    cache_read_input_tokens: u.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheCreation, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function stopReasonOf(opts: ReplyOptions, content: ReplyBlock[]): string {
  return opts.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
}

/** The non-streaming Message JSON of a reply. */
export function renderMessageJson(
  id: string,
  model: string,
  content: ReplyBlock[],
  opts: ReplyOptions,
  u: UsageNums,
) {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(opts, content),
    stop_sequence: opts.stopSequence ?? null,
    usage: fullUsage(u, u.output),
  };
}

/** SSE frames of a content block: start, (ping after the first block's start), deltas, stop. */
function blockFrames(block: ReplyBlock, index: number, chunks: number, out: string[]): void {
  let start: unknown;
  let deltas: unknown[];
  if (block.type === 'text') {
    start = { type: 'text', text: '' };
    deltas = split(block.text, chunks).map((text) => ({ type: 'text_delta', text }));
  } else if (block.type === 'thinking') {
    start = { type: 'thinking', thinking: '', signature: '' };
    deltas = split(block.thinking, chunks).map((thinking) => ({ type: 'thinking_delta', thinking }));
    deltas.push({ type: 'signature_delta', signature: block.signature });
  } else {
    start = { type: 'tool_use', id: block.id, name: block.name, input: {} };
    const json = JSON.stringify(block.input ?? {});
    deltas = ['', ...split(json, chunks)].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  }
  out.push(sseFrame('content_block_start', { type: 'content_block_start', index, content_block: start }));
  if (index === 0) out.push(PING);
  for (const delta of deltas)
    out.push(sseFrame('content_block_delta', { type: 'content_block_delta', index, delta }));
  out.push(sseFrame('content_block_stop', { type: 'content_block_stop', index }));
}

/** The `message_start` SSE frame (empty content, output_tokens 1, as the real API sends). */
export function renderMessageStart(id: string, model: string, u: UsageNums): string {
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  return sseFrame('message_start', {
    type: 'message_start',
    message: { ...message, usage: fullUsage(u, 1) },
  });
}

/** The SSE frames of a whole reply, in the real event order. */
export function renderStream(
  id: string,
  model: string,
  content: ReplyBlock[],
  opts: ReplyOptions,
  u: UsageNums,
): string[] {
  const out = [renderMessageStart(id, model, u)];
  if (content.length === 0) out.push(PING);
  content.forEach((block, i) => blockFrames(block, i, opts.chunks ?? 3, out));
  const usage = {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheCreation,
    cache_read_input_tokens: u.cacheRead,
    output_tokens: u.output,
  };
  const delta = { stop_reason: stopReasonOf(opts, content), stop_sequence: opts.stopSequence ?? null };
  out.push(sseFrame('message_delta', { type: 'message_delta', delta, usage }));
  out.push(sseFrame('message_stop', { type: 'message_stop' }));
  return out;
}

/**
 * The SSE frames of a GeneratedStep, produced lazily: a consumer that stops early never makes the
 * rest. Text is a repeated pattern, so nothing of the reply is held but the current frame.
 */
export function* generatedFrames(
  id: string,
  model: string,
  step: GeneratedStep,
  u: UsageNums,
): Generator<string> {
  yield renderMessageStart(id, model, u);
  const tool = step.shape === 'tool_input';
  const start = tool
    ? { type: 'tool_use', id: toolUseId(), name: 'Write', input: {} }
    : { type: 'text', text: '' };
  yield sseFrame('content_block_start', { type: 'content_block_start', index: 0, content_block: start });
  const size = Math.max(1, step.deltaChars ?? 16_384);
  const pattern = 'All work and no play makes a very long reply. '.repeat(
    Math.ceil(Math.min(size, 1 << 20) / 46) + 1,
  );
  const piece = (n: number) =>
    n <= pattern.length ? pattern.slice(0, n) : pattern.repeat(Math.ceil(n / pattern.length)).slice(0, n);
  const head = tool ? '{"file_path":"big.txt","content":"' : '';
  const tail = tool ? '"}' : '';
  const body = step.chars - head.length - tail.length;
  const delta = (text: string) =>
    sseFrame('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: tool ? { type: 'input_json_delta', partial_json: text } : { type: 'text_delta', text },
    });
  if (step.shape === 'one_line') {
    // One event whose single data line carries the whole text, written piece by piece.
    const open = sseFrame('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: '@' },
    }).split('@');
    yield open[0] ?? '';
    for (let sent = 0; sent < step.chars; sent += size) yield piece(Math.min(size, step.chars - sent));
    yield open[1] ?? '';
  } else {
    if (head) yield delta(head);
    for (let sent = 0; sent < body; sent += size) yield delta(piece(Math.min(size, body - sent)));
    if (tail) yield delta(tail);
  }
  yield sseFrame('content_block_stop', { type: 'content_block_stop', index: 0 });
  const usage = { input_tokens: u.input, output_tokens: tokens(step.chars) };
  const stop = { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null };
  yield sseFrame('message_delta', { type: 'message_delta', delta: stop, usage });
  yield sseFrame('message_stop', { type: 'message_stop' });
}

/** The JSON error body: `{type:'error', error:{type, message}, request_id}`. */
export const errorBody = (type: string, message: string, requestId: string) =>
  JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId });

// ---------- request inspection, for responders that branch per agent ----------

/** A content block of a request message (loosely typed: whatever the client sent). */
export interface RequestBlock {
  type: string;
  text?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  [key: string]: unknown;
}

/** A request message. */
export interface RequestMessage {
  role: string;
  content: string | RequestBlock[];
}

/** The parsed `POST /v1/messages` body (validated for model/max_tokens/messages when a step ran). */
export interface RequestBody {
  model: string;
  max_tokens: number;
  messages: RequestMessage[];
  system?: string | RequestBlock[];
  tools?: { name: string; description?: string; input_schema?: unknown; [key: string]: unknown }[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  [key: string]: unknown;
}

function blocksText(content: string | RequestBlock[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
}

/** The system prompt as one string ('' when absent). */
export function systemText(body: RequestBody): string {
  return blocksText(body.system);
}

/** The last message of the conversation, if any. */
export function lastMessage(body: RequestBody): RequestMessage | undefined {
  return Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
}

/** The text of the last message ('' if it only has non-text blocks). */
export function lastText(body: RequestBody): string {
  return blocksText(lastMessage(body)?.content);
}

/** The tool_result blocks of the last message (empty when it is not a tool-result turn). */
export function toolResults(body: RequestBody): RequestBlock[] {
  const content = lastMessage(body)?.content;
  return Array.isArray(content) ? content.filter((b) => b.type === 'tool_result') : [];
}

/** Maximum number of requests in flight at once, from their [startedAt, endedAt] intervals (open ones never end). */
export function overlaps(requests: readonly { startedAt: number; endedAt?: number | undefined }[]): number {
  const events: [number, number][] = [];
  for (const r of requests) events.push([r.startedAt, 1], [r.endedAt ?? Infinity, -1]);
  // At equal times, ends sort before starts: touching intervals do not overlap.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let max = 0;
  for (const [, delta] of events) {
    current += delta;
    if (current > max) max = current;
  }
  return max;
}
