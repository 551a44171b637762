// One agent's life inside a worker (thread or process): wrap the capability endpoint, build the
// model client (its HTTP goes through the host on the model channel) and the tool set the host granted, run the loop, forward its events to the host and
// return the loop's result. The host decides kills; this code never outlives its thread.
import * as Comlink from 'comlink';
import {
  CAPABILITY_NAMES,
  EVENTS_NOTE,
  type Capabilities,
  type GrantedCapabilities,
} from '../shared/capabilities.js';
import type { Endpoint } from '../shared/endpoint.js';
import type { AgentEvent } from '../shared/events.js';
import type { ControlMessage, WorkerRunResult, WorkerRunSpec } from '../shared/run-spec.js';
import { CONCURRENCY_SAFE_TOOLS } from '../shared/tools.js';
import { runAgentLoop } from './agent-loop.js';
import { createHostFetch } from './models/host-fetch.js';
import { createModelClient } from './models/model-client.js';
import { buildToolSet } from './tool-set.js';
import { carryingEvents } from './carrying-endpoint.js';

/** Runs the agent described by `spec`. */
export async function runWorker(
  spec: WorkerRunSpec,
  capsEndpoint: Endpoint,
  control: Endpoint,
  model: Endpoint,
): Promise<WorkerRunResult> {
  let graceMessage: string | undefined;
  const abort = new AbortController();
  const onControl = (event: { data: unknown }) => {
    const message = event.data as ControlMessage | null;
    if (message?.type === 'grace') graceMessage = message.message;
    if (message?.type === 'cancel') abort.abort();
  };
  control.addEventListener('message', onControl);
  control.start?.();

  // Events go out in order, gathered for one message per turn of this thread's event loop: a
  // reply that ends in eight tool calls is one message to the host, not a dozen. Every capability
  // call carries what is gathered (EVENTS_FIELD), so the host sees a tool call before the effects
  // it asks for (and a tool that then spins until the deadline has its call in the transcript), in
  // the call's own message; a tool's result goes out as soon as it is known. A kill loses at most
  // the streamed events of the current turn that no capability call followed.
  let outbox: AgentEvent[] = [];
  const take = () => {
    const batch = outbox;
    outbox = [];
    return batch;
  };
  const flush = () => {
    if (outbox.length > 0) capsEndpoint.postMessage({ type: EVENTS_NOTE, events: take() });
  };
  const remote = Comlink.wrap<Capabilities>(
    carryingEvents(capsEndpoint, () =>
      outbox.length > 0 ? take() : undefined,
    ) as unknown as Comlink.Endpoint,
  );
  const send = (event: AgentEvent) => {
    const first = outbox.push(event) === 1;
    // A tool's result goes out at once: a parallel tool may be about to spin until the deadline.
    if (event.type === 'tool-result') flush();
    else if (first) setImmediate(flush);
  };
  const caps = capabilityTable(remote);
  try {
    const client = createModelClient(spec.model, {
      fetch: createHostFetch(model),
      caps: spec.caps,
      onExchange: (exchange) =>
        send({ type: 'model-exchange', exchange, agentId: spec.agentId, depth: spec.depth, at: Date.now() }),
    });
    const tools = buildToolSet(spec, caps, abort.signal);
    const loop = runAgentLoop({
      spec,
      client,
      tools,
      isConcurrencySafe: (name) =>
        CONCURRENCY_SAFE_TOOLS.has(name) || tools.isDelegation(name) || tools.isReadOnlyMcp(name),
      now: () => Date.now(),
      signal: abort.signal,
      grace: { requested: () => graceMessage !== undefined, message: () => graceMessage ?? '' },
    });
    for (;;) {
      const step = await loop.next();
      if (step.done) return step.value;
      send(step.value);
    }
  } finally {
    flush();
    control.removeEventListener('message', onControl);
    remote[Comlink.releaseProxy]();
  }
}

/**
 * The capability table as tools see it, without `events.emit` (events go with calls or in notes).
 * Names are looked up when called, as on the Comlink proxy.
 */
function capabilityTable(remote: Comlink.Remote<Capabilities>): GrantedCapabilities {
  const caps: Record<string, (request: unknown) => Promise<unknown>> = Object.create(null) as Record<
    string,
    (request: unknown) => Promise<unknown>
  >;
  for (const name of CAPABILITY_NAMES) {
    if (name === 'events.emit') continue;
    caps[name] = (request) => (remote[name] as unknown as (request: unknown) => Promise<unknown>)(request);
  }
  return caps as GrantedCapabilities;
}
