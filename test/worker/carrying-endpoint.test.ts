// A capability call and the events gathered before it leave the worker as one message, and the
// host's gateway delivers the events first: through a real MessageChannel and Comlink.
import { MessageChannel } from 'node:worker_threads';
import * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { exposeGateway } from '../../src/host/capabilities/gateway.js';
import { EVENTS_FIELD, type Capabilities } from '../../src/shared/capabilities.js';
import { portEndpoint } from '../../src/shared/endpoint.js';
import { ok } from '../../src/shared/errors.js';
import type { AgentEvent } from '../../src/shared/events.js';
import { carryingEvents } from '../../src/worker/carrying-endpoint.js';

describe('carryingEvents', () => {
  it('sends each call with the events gathered before it, in one message, delivered before the call', async () => {
    const channel = new MessageChannel();
    const seen: string[] = [];
    const gateway = exposeGateway(
      portEndpoint(channel.port1),
      {
        'events.emit': async (events) => {
          seen.push(...(events as { text: string }[]).map((e) => `event ${e.text}`));
          return ok(null);
        },
        'fs.stat': async (req) => {
          seen.push(`stat ${req.path}`);
          return ok({ path: req.path, exists: false, type: 'missing' as const, size: 0, mtimeMs: 0 });
        },
      },
      ['events.emit', 'fs.stat'],
    );
    const sent: unknown[] = [];
    const port = portEndpoint(channel.port2);
    const counting = { ...port, postMessage: (m: unknown) => (sent.push(m), port.postMessage(m)) };
    let outbox: AgentEvent[] = [];
    const event = (text: string) => ({ type: 'text-delta', text }) as unknown as AgentEvent;
    const remote = Comlink.wrap<Capabilities>(
      carryingEvents(counting, () => {
        if (outbox.length === 0) return undefined;
        const batch = outbox;
        outbox = [];
        return batch;
      }) as unknown as Comlink.Endpoint,
    );
    outbox.push(event('one'), event('two'));
    expect((await remote['fs.stat']({ path: 'a' })).ok).toBe(true);
    expect((await remote['fs.stat']({ path: 'b' })).ok).toBe(true);
    expect(seen).toEqual(['event one', 'event two', 'stat a', 'stat b']);
    expect(sent).toHaveLength(2);
    expect((sent[0] as Record<string, unknown>)[EVENTS_FIELD]).toHaveLength(2);
    expect(sent[1]).not.toHaveProperty(EVENTS_FIELD);
    gateway.close();
    channel.port1.close();
    channel.port2.close();
  });
});
