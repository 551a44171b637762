// Caps on what one model message may start: at most `maxToolCallsPerMessage` tool calls run, and
// of them at most `maxTasksPerMessage` subagent launches. A message of thousands of calls would
// otherwise start thousands of subagents, or run until the worker runs out of memory. The calls
// past a cap are answered, unrun, with an error that states the limit and says not to retry.
import type { RunCaps } from '../../shared/run-spec.js';
import type { PendingCall } from './tool-call.js';

/**
 * Marks the calls past the caps as refused, in the model's order. `launches` names the tools that
 * start a subagent. Calls already refused (unknown tool, broken input) count against neither cap.
 */
export function capFanOut(
  calls: readonly PendingCall[],
  caps: Pick<RunCaps, 'maxToolCallsPerMessage' | 'maxTasksPerMessage'>,
  launches: ReadonlySet<string>,
): void {
  const asked = calls.length;
  const askedLaunches = calls.filter((c) => launches.has(c.name)).length;
  let run = 0;
  let launched = 0;
  for (const call of calls) {
    if (call.refusal !== undefined) continue;
    if (run >= caps.maxToolCallsPerMessage) {
      call.refusal = `limit_reached: at most ${caps.maxToolCallsPerMessage} tool calls run per message (maxToolCallsPerMessage) and this message made ${asked}; this call was not run. Do not retry it: use the results you have, and make fewer calls per message.`;
      continue;
    }
    if (launches.has(call.name)) {
      if (launched >= caps.maxTasksPerMessage) {
        call.refusal = `limit_reached: at most ${caps.maxTasksPerMessage} subagents start per message (maxTasksPerMessage) and this message asked for ${askedLaunches}; this one was not started. Do not retry it: use the results of the ones that ran.`;
        continue;
      }
      launched++;
    }
    run++;
  }
}
