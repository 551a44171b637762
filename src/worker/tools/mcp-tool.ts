// An MCP tool as the worker offers it: the definition the host sent (name, description, the
// server's input schema), and a run that hands the model's input to the host's `mcp.call`. The
// server validates the input; the host decides, calls, and formats the result.
import type { ExtraToolDef } from '../../shared/run-spec.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import type { Tool } from './tool.js';

/** The tool for one MCP tool the host granted. */
export function mcpTool(def: ExtraToolDef): Tool {
  return {
    name: def.name,
    description: def.description,
    inputSchema: def.input_schema,
    async run(input, ctx) {
      const args =
        typeof input === 'object' && input !== null && !Array.isArray(input)
          ? (input as Record<string, unknown>)
          : {};
      const envelope = await callCapability(ctx, 'mcp.call', { tool: def.name, input: args });
      if (!envelope.ok) return capabilityFailure(envelope.error);
      const { content, isError, images } = envelope.value;
      return images && images.length > 0 ? { content, isError, images } : { content, isError };
    },
  };
}
