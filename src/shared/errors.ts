// Error codes shared by host and worker, sorted by who is at fault, and their wire form.
// Comlink flattens thrown errors to message/name/stack, so every boundary converts explicitly
// and callers check `code`, never `instanceof`.
//
// The two schemas are marked pure (/* @__PURE__ */) so that a bundle using only the error class
// and its conversions leaves zod out: the host's I/O threads load this module and nothing of zod.
import * as z from 'zod';

/** Every error code cadre emits. The string is the contract; never rename one. */
export const ErrorCode = /* @__PURE__ */ z.enum([
  'invalid_input',
  'not_found',
  'not_granted',
  'forbidden_operation',
  'permission_denied',
  'approval_denied',
  'path_outside_project',
  'sensitive_path',
  'too_large',
  'binary_file',
  'stale_file',
  'sandbox_unavailable',
  'timeout',
  'cancelled',
  'worker_died',
  'out_of_memory',
  'limit_reached',
  'budget_exceeded',
  'max_turns',
  'model_error',
  'model_refusal',
  'mcp_error',
  'io_error',
  'internal',
]);
/** One of the codes above. */
export type ErrorCode = z.infer<typeof ErrorCode>;

/**
 * Codes that mean the grant, the policy or a person refused a capability call rather than the call
 * failing: the host audits each as a `deny` and reports it as an `effect-refused` event, and a tool
 * result that starts with one reads as refused.
 */
export const REFUSAL_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'permission_denied',
  'approval_denied',
  'path_outside_project',
  'sensitive_path',
  'forbidden_operation',
  'not_granted',
]);

/** Who caused an error: the user (config, flags), the model (bad tool input), or the system. */
export type ErrorFault = 'user' | 'model' | 'system';

const FAULT: Record<ErrorCode, ErrorFault> = {
  invalid_input: 'model',
  not_found: 'model',
  not_granted: 'model',
  forbidden_operation: 'model',
  permission_denied: 'user',
  approval_denied: 'user',
  path_outside_project: 'model',
  sensitive_path: 'model',
  too_large: 'model',
  binary_file: 'model',
  stale_file: 'model',
  sandbox_unavailable: 'user',
  timeout: 'system',
  cancelled: 'user',
  worker_died: 'system',
  out_of_memory: 'system',
  limit_reached: 'system',
  budget_exceeded: 'user',
  max_turns: 'model',
  model_error: 'system',
  model_refusal: 'model',
  mcp_error: 'system',
  io_error: 'system',
  internal: 'system',
};

/** The wire form of an error: what crosses a MessagePort, a transcript or a JSON result. */
export const WireError = /* @__PURE__ */ z.object({
  code: ErrorCode,
  message: /* @__PURE__ */ z.string(),
  details: /* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()).optional(),
});
/** The wire form of an error. */
export type WireError = z.infer<typeof WireError>;

/** An error with a stable code. Use `isCadreError` to recognise one, not `instanceof`. */
export class CadreError extends Error {
  readonly code: ErrorCode;
  readonly fault: ErrorFault;
  readonly details: Record<string, unknown> | undefined;
  readonly cadreError = true;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'CadreError';
    this.code = code;
    this.fault = FAULT[code];
    this.details = details;
  }
}

/** True for a CadreError from any realm (worker, other package copy). */
export function isCadreError(value: unknown): value is CadreError {
  return (
    typeof value === 'object' && value !== null && (value as { cadreError?: unknown }).cadreError === true
  );
}

/** Converts anything thrown into its wire form; unknown errors become `internal`. */
export function toWire(error: unknown): WireError {
  if (isCadreError(error)) {
    return error.details === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details: error.details };
  }
  if (error instanceof Error) return { code: 'internal', message: error.message };
  return { code: 'internal', message: String(error) };
}

/** Rebuilds a CadreError from its wire form (anything malformed becomes `internal`). */
export function fromWire(wire: unknown): CadreError {
  const parsed = WireError.safeParse(wire);
  if (!parsed.success) return new CadreError('internal', 'malformed error from the other side of a port');
  return new CadreError(parsed.data.code, parsed.data.message, parsed.data.details);
}

/** A result envelope: what every capability call returns instead of throwing across a port. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** Wraps a value in a success envelope. */
export function ok<T>(value: T): Envelope<T> {
  return { ok: true, value };
}

/** Wraps an error in a failure envelope. */
export function fail(error: unknown): Envelope<never> {
  return { ok: false, error: toWire(error) };
}
