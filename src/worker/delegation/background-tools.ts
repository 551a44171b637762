// TaskOutput and TaskStop: wait for, poll or cancel a subagent started with run_in_background.
import { TaskOutputInput, TaskStopInput } from '../../shared/tools.js';
import type { TaskOutput } from '../../shared/task.js';
import { callCapability, capabilityFailure } from '../tools/call-capability.js';
import { defineTool, parseToolInput, toolText, type Tool } from '../tools/tool.js';
import { formatChildOutput } from './task-tool.js';

/** TaskOutput: block up to `timeout` seconds (default 30) or poll with block=false. */
export const taskOutputTool: Tool = defineTool({
  name: 'TaskOutput',
  description:
    'Get the result of a background subagent started with Task run_in_background. By default waits up to `timeout` seconds (default 30); block=false polls.',
  input: TaskOutputInput,
  descriptions: {
    agent_id: 'The agentId returned when the background task started',
    block: 'Wait for the run to finish (default true)',
    timeout: 'Seconds to wait at most',
  },
  async run(input, ctx) {
    const parsed = parseToolInput('TaskOutput', TaskOutputInput, input);
    if (!parsed.ok) return parsed.result;
    const waitMs = parsed.data.block === false ? 0 : Math.round((parsed.data.timeout ?? 30) * 1000);
    const envelope = await callCapability(ctx, 'agents.output', {
      agentId: parsed.data.agent_id,
      timeoutMs: waitMs,
    });
    if (!envelope.ok) return capabilityFailure(envelope.error);
    const value = envelope.value;
    if (value.status === 'running') return toolText(`agentId: ${value.agentId}\nstatus: still running`);
    return formatChildOutput(value as TaskOutput);
  },
});

/** TaskStop: cancel a background subagent. */
export const taskStopTool: Tool = defineTool({
  name: 'TaskStop',
  description: 'Cancel a background subagent started with Task run_in_background.',
  input: TaskStopInput,
  descriptions: { agent_id: 'The agentId to cancel' },
  async run(input, ctx) {
    const parsed = parseToolInput('TaskStop', TaskStopInput, input);
    if (!parsed.ok) return parsed.result;
    const envelope = await callCapability(ctx, 'agents.stop', { agentId: parsed.data.agent_id });
    if (!envelope.ok) return capabilityFailure(envelope.error);
    return toolText(
      envelope.value.stopped
        ? `stopped ${envelope.value.agentId}`
        : `${envelope.value.agentId} had already finished`,
    );
  },
});
