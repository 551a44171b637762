// Turns whatever the Anthropic SDK throws into a CadreError a user can act on: API errors keep
// their status, type and the API's own message; stalls become `timeout`; aborts `cancelled`.
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk/core/error';
import { CadreError, isCadreError } from '../../shared/errors.js';

/** What the stream knew when it failed. */
export interface FailureContext {
  baseURL: string;
  idleTimeoutMs: number;
  /** The idle watchdog aborted the stream. */
  idle: boolean;
  /** The caller's signal fired. */
  cancelled: boolean;
}

/** The idle timeout error (also for a server that never sends its headers). */
function idleTimeoutError(ms: number, phase: 'headers' | 'stream'): CadreError {
  const what = phase === 'headers' ? 'sent no response headers' : 'stream sent nothing';
  return new CadreError('timeout', `the model ${what} for ${formatSeconds(ms)} (idle timeout)`, {
    reason: 'idle_timeout',
  });
}

/** Maps an SDK (or fetch) failure to a CadreError. */
export function toModelError(error: unknown, ctx: FailureContext): CadreError {
  if (isCadreError(error)) return error;
  const cut = causeWithCode(error, 'reply_too_large');
  if (cut !== undefined) return new CadreError('too_large', cut.message, { reason: 'reply_too_large' });
  if (ctx.idle) return idleTimeoutError(ctx.idleTimeoutMs, 'stream');
  if (ctx.cancelled || error instanceof APIUserAbortError)
    return new CadreError('cancelled', 'the model call was cancelled');
  if (error instanceof APIConnectionTimeoutError) return idleTimeoutError(ctx.idleTimeoutMs, 'headers');
  if (error instanceof APIConnectionError) {
    const cause = rootCause(error) ?? error.message;
    const details = { reason: 'model_error' };
    return new CadreError('model_error', `cannot reach the model API at ${ctx.baseURL}: ${cause}`, details);
  }
  if (error instanceof APIError) return apiError(error);
  const message = error instanceof Error ? error.message : String(error);
  return new CadreError('model_error', `the model stream from ${ctx.baseURL} broke off: ${message}`, {
    reason: 'model_error',
  });
}

/** `529 overloaded_error: Overloaded`; an SSE `error` event (no status) says `(error event in the stream)`. */
function apiError(error: APIError): CadreError {
  const status = typeof error.status === 'number' ? error.status : undefined;
  const type = error.type ?? undefined;
  const text = error.apiMessage ?? error.message;
  const head = [status, type === undefined || type === null ? undefined : `${type}:`]
    .filter((p) => p !== undefined)
    .join(' ');
  const message = `${head === '' ? '' : `${head} `}${text}${status === undefined ? ' (error event in the stream)' : ''}`;
  const details: Record<string, unknown> = { reason: 'model_error' };
  if (status !== undefined) details['status'] = status;
  if (type !== undefined && type !== null) details['type'] = type;
  if (typeof error.requestID === 'string') details['requestId'] = error.requestID;
  return new CadreError('model_error', message, details);
}

/** The first error in `error`'s cause chain that carries `code`. */
function causeWithCode(error: unknown, code: string): Error | undefined {
  let cause: unknown = error;
  for (let depth = 0; cause instanceof Error && depth < 6; depth++, cause = cause.cause) {
    if ((cause as NodeJS.ErrnoException).code === code) return cause;
  }
  return undefined;
}

/** The innermost cause's message (`connect ECONNREFUSED 127.0.0.1:8080`), past fetch's generic wrappers. */
function rootCause(error: Error): string | undefined {
  let found: string | undefined;
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++, cause = cause.cause) {
    if (cause.message !== '') found = cause.message;
  }
  return found;
}

function formatSeconds(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
