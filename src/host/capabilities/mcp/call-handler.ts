// The `mcp.call` capability of one run: the name the worker sends is looked up in the run's own
// table (a name the run was not offered does not exist), the call passes the one policy function
// and the approval queue like any effect, runs with the server's explicit timeout, is cancelled on
// the server (`notifications/cancelled`) when the run ends first, and is audited either way.
import type { Capabilities } from '../../../shared/capabilities.js';
import { CadreError, isCadreError } from '../../../shared/errors.js';
import { terminalText } from '../../terminal-text.js';
import { detailOf } from '../../approvals/preview.js';
import { audited, authorize, parseRequest, type EffectContext } from '../effect-context.js';
import { formatMcpResult } from './result-format.js';
import type { RunMcpTool } from './run-mcp-tools.js';
import { VerdictMemo } from '../verdict-memo.js';

/**
 * Builds the handler over `table`, the tools this run was offered. A result is cut here to the
 * smaller of its server's `maxOutputChars` and `maxResultChars` (the worker's cap on any tool
 * result), so it is cut once and its note names the budget that cut it.
 */
export function mcpCallHandler(
  ctx: EffectContext,
  table: ReadonlyMap<string, RunMcpTool>,
  maxResultChars = Number.POSITIVE_INFINITY,
): Capabilities['mcp.call'] {
  const verdicts = new VerdictMemo();
  const inFlight = inFlightCalls(ctx.signal);
  return (raw) => {
    const r = raw as { tool?: unknown; input?: unknown };
    const keys = typeof r?.input === 'object' && r.input !== null ? Object.keys(r.input).slice(0, 20) : [];
    const summary = `${String(r?.tool ?? '').slice(0, 200)} (input keys: ${keys.join(', ') || 'none'})`;
    return audited(ctx, 'mcp.call', summary, async (call) => {
      const req = parseRequest('mcp.call', raw);
      const entry = table.get(req.tool);
      if (!entry)
        throw new CadreError(
          'not_granted',
          `no MCP tool named "${req.tool}" is available to this agent; use only the tools it was offered`,
        );
      const reason = await authorize(
        ctx,
        call,
        { capability: 'mcp.call', tool: entry.name, readOnly: entry.readOnly },
        {
          action: `call ${entry.name}`,
          // Built only when the call asks: most calls are allowed, and no person reads this line.
          summary: () => askLine(entry, keys.length),
          // The arguments are what the call does (`DROP TABLE …` in a `run_query`): shown, not
          // only counted. Pretty JSON, so no line of it can pass for a line of the prompt.
          preview: () => `${askLine(entry, keys.length)}\n${detailOf(req.input)}`,
          detail: () => detailOf(req.input),
        },
        verdicts,
      );
      const result = await callLinked(entry, req.input, inFlight);
      return {
        value: formatMcpResult(result, entry.maxOutputChars, maxResultChars),
        reason: `${reason}; ${entry.server}/${entry.tool}`,
      };
    });
  };
}

/** The one line a person judges a call by. The tool's own name is the server's choice: made inert. */
function askLine(entry: RunMcpTool, fields: number): string {
  return `call ${entry.name} (tool "${terminalText(entry.tool, { multiline: false })}" of MCP server "${entry.server}") with ${fields} input field${fields === 1 ? '' : 's'}`;
}

/** The calls of one run in flight: each is aborted when the run ends. */
interface InFlight {
  readonly run: AbortSignal;
  readonly calls: Set<AbortController>;
}

/**
 * One listener on the run's signal for all its calls, rather than one added and removed per call:
 * Node's EventTarget makes both cost more than the Set does.
 */
function inFlightCalls(run: AbortSignal): InFlight {
  const calls = new Set<AbortController>();
  const onEnd = () => {
    for (const call of calls) call.abort(new CadreError('cancelled', 'the calling agent ended'));
    calls.clear();
  };
  if (!run.aborted) run.addEventListener('abort', onEnd, { once: true });
  return { run, calls };
}

/**
 * Calls with a signal of the call's own, aborted when the run ends while the call is in flight
 * and released when it settles: the SDK never removes its listener from a signal, and a signal
 * that outlives the call would send a cancellation for a request already answered.
 */
async function callLinked(entry: RunMcpTool, input: Record<string, unknown>, inFlight: InFlight) {
  const call = new AbortController();
  if (inFlight.run.aborted) call.abort(new CadreError('cancelled', 'the calling agent ended'));
  else inFlight.calls.add(call);
  try {
    return await entry.connection.call(entry.tool, input, {
      timeoutMs: entry.timeoutMs,
      signal: call.signal,
    });
  } catch (error) {
    if (isCadreError(error) && error.code === 'timeout')
      throw new CadreError(
        'timeout',
        `${entry.name} did not answer within ${entry.timeoutMs / 1000} s (the timeout of MCP server "${entry.server}"); the call was cancelled on the server`,
      );
    if (isCadreError(error) && error.code === 'cancelled')
      throw new CadreError('cancelled', `${entry.name} was cancelled because the calling agent ended`);
    throw error;
  } finally {
    inFlight.calls.delete(call);
  }
}
