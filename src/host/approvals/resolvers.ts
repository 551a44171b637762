// The resolvers cadre ships: the non-interactive one (scripts, CI, `--print` runs: denies at once
// with a message that says what would allow the call) and one that forwards to a caller's function.
import type { ApprovalRequest, Resolver, ResolverAnswer } from './types.js';

/**
 * The message a non-interactive denial carries, written for both the model (do not retry; say what
 * is missing) and the person reading the output (which rule or mode would allow it).
 */
function nonInteractiveMessage(request: ApprovalRequest): string {
  const rules = request.suggestions ?? [];
  const fix =
    rules.length > 0
      ? `add ${rules.map((r) => `"${r}"`).join(', ')} to permissions.allow in .cadre/config.json, or run with a --permission-mode that allows it`
      : 'add an allow rule to permissions.allow in .cadre/config.json, or run with a --permission-mode that allows it';
  return (
    `${request.capability} was not run: it needs approval and this run is non-interactive (${request.summary}). ` +
    `${request.reason}. To allow it, ${fix}. Do not retry the same call; ` +
    'continue without it or report that it is needed.'
  );
}

/** Denies every request at once. It never waits, so a run without a person never hangs. */
export function nonInteractiveResolver(): Resolver {
  return {
    interactive: false,
    resolve: (request) => Promise.resolve({ decision: 'deny', reason: nonInteractiveMessage(request) }),
  };
}

/**
 * A resolver backed by a function: a library caller's `onApproval`, or a test. `interactive` says
 * whether a person answers behind it (their time is then given back to the run's deadline).
 */
export function callbackResolver(
  answer: (request: ApprovalRequest, signal: AbortSignal) => ResolverAnswer | Promise<ResolverAnswer>,
  options: { interactive?: boolean } = {},
): Resolver {
  return {
    interactive: options.interactive ?? true,
    resolve: async (request, signal) => answer(request, signal),
  };
}
