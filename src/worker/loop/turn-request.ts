// The Messages API request of one turn: the conversation so far with the run's tools, or, in the
// grace turn, a request that lets the model write its report but use no tool.
import type { WorkerRunSpec } from '../../shared/run-spec.js';
import type { ModelRequest, ServerToolDefinition, ToolDefinition } from '../models/model-client.js';
import type { Conversation } from './conversation.js';

/** The tools a request offers. */
export interface RequestTools {
  definitions: ToolDefinition[];
  serverTools?: ServerToolDefinition[];
}

/** The request of the next turn; `grace` makes it the last, tool-less one. */
export function turnRequest(
  spec: Pick<WorkerRunSpec, 'model' | 'system'>,
  tools: RequestTools,
  convo: Pick<Conversation, 'snapshot' | 'hasToolBlocks'>,
  grace: boolean,
): ModelRequest {
  const request: ModelRequest = {
    model: spec.model.model,
    system: spec.system,
    messages: convo.snapshot(),
    tools: tools.definitions,
    maxTokens: spec.model.maxTokens,
  };
  if (tools.serverTools !== undefined && tools.serverTools.length > 0)
    request.serverTools = tools.serverTools;
  if (grace) {
    // The API rejects tool blocks in a conversation without tool definitions: keep them, forbid their use.
    const anyTools = tools.definitions.length > 0 || request.serverTools !== undefined;
    if (convo.hasToolBlocks && anyTools) request.toolChoice = 'none';
    else {
      request.tools = [];
      delete request.serverTools;
    }
  }
  return request;
}
