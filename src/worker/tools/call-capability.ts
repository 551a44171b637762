// The one way tool logic reaches the host: call a granted capability and get its envelope back,
// and turn a failed envelope into the `code: message` result the model reads.
import type { Capabilities, CapabilityName } from '../../shared/capabilities.js';
import type { Envelope, WireError } from '../../shared/errors.js';
import type { ToolContext, ToolResult } from './tool.js';
import { toolError } from './tool.js';

type Request<K extends CapabilityName> = Parameters<Capabilities[K]>[0];
type Response<K extends CapabilityName> = Awaited<ReturnType<Capabilities[K]>>;

/**
 * Calls capability `name` on the run's grant. A name missing from the grant answers with a
 * `not_granted` envelope rather than a throw, so the model learns which tool it lacks.
 */
export async function callCapability<K extends CapabilityName>(
  ctx: ToolContext,
  name: K,
  request: Request<K>,
): Promise<Response<K>> {
  // Called as a method on the grant object: with a Comlink proxy, `fn.call(...)` would become a
  // remote property access instead of a call.
  const caps = ctx.caps as Record<string, ((req: Request<K>) => Promise<Response<K>>) | undefined>;
  if (typeof caps[name] !== 'function') {
    const missing: Envelope<never> = {
      ok: false,
      error: { code: 'not_granted', message: `this agent is not granted the ${name} capability` },
    };
    return missing as Response<K>;
  }
  return caps[name](request);
}

/** The tool result for a failed capability call: `code: message`, as the model should see it. */
export function capabilityFailure(error: WireError): ToolResult {
  return toolError(`${error.code}: ${error.message}`);
}
