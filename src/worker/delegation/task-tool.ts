// The Task tool and agents exposed as tools: both ask the host's `agents.task` capability to run a
// subagent. The host resolves the definition, the child's grant and its limits; the worker only
// formats what comes back for the model.
import { outsideTaskTypes } from '../../shared/agent-name.js';
import type { BackgroundHandle } from '../../shared/capabilities.js';
import type { ExtraToolDef } from '../../shared/run-spec.js';
import type { TaskInput, TaskOutput } from '../../shared/task.js';
import { usageLine } from '../../shared/usage.js';
import { TaskToolInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from '../tools/call-capability.js';
import {
  parseToolInput,
  toInputSchema,
  toolError,
  toolText,
  type Tool,
  type ToolResult,
} from '../tools/tool.js';

/** How the model sees a finished child run. */
export function formatChildOutput(output: TaskOutput): ToolResult {
  const head = `agentId: ${output.agentId}\nstatus: ${output.status}\nusage: ${usageLine(output)}`;
  const error = output.error ? `\nerror: ${output.error.code}: ${output.error.message}` : '';
  const body = output.result.trim() ? output.result : '(no text)';
  return { content: `${head}${error}\n\n${body}`, isError: output.status !== 'completed' };
}

function formatHandle(handle: BackgroundHandle): ToolResult {
  return toolText(
    `agentId: ${handle.agentId}\nstatus: running in the background\ntranscript: ${handle.transcriptPath}\n` +
      'Use TaskOutput with this agent_id to wait for or poll its result, TaskStop to cancel it.',
  );
}

async function delegate(ctx: Parameters<Tool['run']>[1], request: TaskInput): Promise<ToolResult> {
  const envelope = await callCapability(ctx, 'agents.task', request);
  if (!envelope.ok) return capabilityFailure(envelope.error);
  const value = envelope.value;
  return 'transcriptPath' in value && value.status === 'running'
    ? formatHandle(value as BackgroundHandle)
    : formatChildOutput(value as TaskOutput);
}

// Built once per thread on first use: converting the zod schema is most of what making the tool costs.
let taskInputSchema: Record<string, unknown> | undefined;
function taskSchema(): Record<string, unknown> {
  taskInputSchema ??= toInputSchema(TaskToolInput, {
    description: 'A short (3-5 word) description of the task',
    prompt: 'The full task for the subagent',
    subagent_type: 'The type of agent to launch',
    model: 'Optional model alias or id for this run',
    run_in_background: 'Return at once with the agentId; collect the result with TaskOutput',
    resume:
      'The agentId of a finished run of this same subagent_type, started in this task (by you or a subagent), to continue with this prompt',
    max_turns: 'Most model turns the subagent may take',
    timeout: 'Timeout in seconds',
  });
  return taskInputSchema;
}

/** The Task tool: `spawnable` lists the agent types the grant names (absent = any). */
export function taskTool(spawnable: readonly string[] | undefined): Tool {
  const limit = spawnable ? ` This agent may only launch these types: ${spawnable.join(', ')}.` : '';
  return {
    name: 'Task',
    description:
      'Launch a subagent to handle a self-contained task in its own context and return its final report. ' +
      'Give it everything it needs in `prompt` (it cannot see this conversation) and say exactly what to report back. ' +
      'Launch several in one message to run them in parallel. Use run_in_background for long work and collect it with TaskOutput.' +
      limit,
    inputSchema: taskSchema(),
    async run(input, ctx) {
      const parsed = parseToolInput('Task', TaskToolInput, input);
      if (!parsed.ok) return parsed.result;
      const d = parsed.data;
      const outside = spawnable && outsideTaskTypes(spawnable, d.subagent_type);
      if (outside) return toolError(`not_granted: ${outside}`);
      return delegate(ctx, {
        subagent_type: d.subagent_type,
        prompt: d.prompt,
        description: d.description,
        ...(d.model !== undefined ? { model: d.model } : {}),
        ...(d.run_in_background !== undefined ? { run_in_background: d.run_in_background } : {}),
        ...(d.resume !== undefined ? { resume: d.resume } : {}),
        ...(d.max_turns !== undefined ? { max_turns: d.max_turns } : {}),
        ...(d.timeout !== undefined ? { timeout: d.timeout } : {}),
      });
    },
  };
}

/** An agent exposed as a tool of its own (`exposeAsTool`): its input becomes the child's prompt. */
export function exposedAgentTool(def: ExtraToolDef): Tool {
  return {
    name: def.name,
    description: def.description,
    inputSchema: def.input_schema,
    async run(input, ctx) {
      if (!def.agentType) return toolError(`internal: tool ${def.name} names no agent type`);
      const prompt =
        typeof input === 'object' && input !== null && 'prompt' in input && typeof input.prompt === 'string'
          ? input.prompt
          : `Input:\n${JSON.stringify(input, null, 2)}`;
      return delegate(ctx, { subagent_type: def.agentType, prompt, description: def.name });
    },
  };
}
