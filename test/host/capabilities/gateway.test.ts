import { MessageChannel, Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { exposeGateway } from '../../../src/host/capabilities/gateway.js';
import { portEndpoint } from '../../../src/shared/endpoint.js';
import { ok } from '../../../src/shared/errors.js';
import { EVENTS_FIELD, EVENTS_NOTE, type Capabilities } from '../../../src/shared/capabilities.js';
import { until } from '../../support/until.js';

describe('capability gateway guard', () => {
  it('lets a forging worker call only granted capabilities and changes nothing on the host', async () => {
    const channel = new MessageChannel();
    const calls: string[] = [];
    const handlers: Partial<Capabilities> = {
      'fs.stat': async (req) => {
        calls.push(`stat ${req.path}`);
        return ok({ path: req.path, exists: false, type: 'missing' as const, size: 0, mtimeMs: 0 });
      },
      'exec.run': async () => {
        calls.push('exec');
        throw new Error('exec must never be reached');
      },
    };
    const gateway = exposeGateway(portEndpoint(channel.port1), handlers, ['fs.stat']);
    const worker = new Worker(new URL('../../fixtures/workers/forger.mjs', import.meta.url), {
      workerData: { port: channel.port2 },
      transferList: [channel.port2],
    });
    const results = (await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    })) as Record<string, { ok: boolean; value?: unknown; message?: string }>;
    await worker.terminate();
    gateway.close();
    channel.port1.close();

    expect(results.granted).toEqual({
      ok: true,
      value: { ok: true, value: { path: 'x', exists: false, type: 'missing', size: 0, mtimeMs: 0 } },
    });
    expect(results.ungranted?.ok).toBe(false);
    expect(results.ungranted?.message).toMatch(/not granted/);
    expect(results['fn-constructor']?.ok).toBe(false);
    expect(results.get?.ok).toBe(false);
    expect(results.set?.ok).toBe(false);
    expect(results['set-existing']?.value).toEqual(
      expect.arrayContaining([expect.stringMatching(/SET is not allowed/)]),
    );
    expect(results['nested-apply']?.ok).toBe(false);
    expect(results['raw-message']?.value).toMatchObject({ type: 'HANDLER', name: 'throw' });
    expect((globalThis as { __forged?: unknown }).__forged).toBeUndefined();
    expect(calls).toEqual(['stat x']);
    expect(Object.keys(handlers).sort()).toEqual(['exec.run', 'fs.stat']);
    expect(handlers['fs.stat']).toBeTypeOf('function');
  });

  it('takes an events note only where events.emit is granted, and never answers one', async () => {
    for (const granted of [true, false]) {
      const channel = new MessageChannel();
      const batches: unknown[] = [];
      const gateway = exposeGateway(
        portEndpoint(channel.port1),
        {
          'events.emit': async (events) => {
            batches.push(events);
            return ok(null);
          },
          'fs.stat': async () => Promise.reject(new Error('not called')),
        },
        granted ? ['events.emit'] : ['fs.stat'],
      );
      const answers: unknown[] = [];
      channel.port2.on('message', (m: unknown) => answers.push(m));
      channel.port2.postMessage({ type: EVENTS_NOTE, events: [{ type: 'text-delta', text: 'hi' }] });
      // A note naming another capability is still only an events note.
      channel.port2.postMessage({ type: EVENTS_NOTE, name: 'fs.stat', events: [] });
      // A refused GET is answered at once, in port order: its answer means both notes were taken.
      channel.port2.postMessage({ id: 'last', type: 'GET', path: ['fs.stat'] });
      await until(() => answers.length > 0, 'the answer to the GET after the notes');
      expect(batches).toEqual(granted ? [[{ type: 'text-delta', text: 'hi' }], []] : []);
      expect(answers).toEqual([expect.objectContaining({ id: 'last', type: 'HANDLER' })]);
      gateway.close();
      channel.port1.close();
      channel.port2.close();
    }
  });

  it('delivers events riding on a call before the call, and still after the worker ended', async () => {
    const channel = new MessageChannel();
    const seen: string[] = [];
    const gateway = exposeGateway(
      portEndpoint(channel.port1),
      {
        'events.emit': async (events) => {
          seen.push(`events ${JSON.stringify(events)}`);
          return ok(null);
        },
        'fs.stat': async (req) => {
          seen.push(`stat ${req.path}`);
          return ok({ path: req.path, exists: false, type: 'missing' as const, size: 0, mtimeMs: 0 });
        },
      },
      ['events.emit', 'fs.stat'],
    );
    const answers: Record<string, unknown>[] = [];
    channel.port2.on('message', (m: Record<string, unknown>) => answers.push(m));
    const call = (id: string, type: string, events: unknown[]) => ({
      id,
      type,
      path: ['fs.stat'],
      argumentList: [{ type: 'RAW', value: { path: id } }],
      [EVENTS_FIELD]: events,
    });
    channel.port2.postMessage(call('a', 'APPLY', [{ type: 'tool-call', n: 1 }]));
    // A refused message's events are still delivered: they happened, as a separate note would say.
    channel.port2.postMessage(call('b', 'GET', [{ type: 'tool-call', n: 2 }]));
    // Each message's events are taken before it is answered: two answers mean all of it was seen.
    await until(() => answers.length === 2, 'the answers to both calls');
    expect(seen).toEqual([
      'events [{"type":"tool-call","n":1}]',
      'stat a',
      'events [{"type":"tool-call","n":2}]',
    ]);
    expect(answers.map((a) => [a.id, a.type])).toEqual([
      ['a', 'RAW'],
      ['b', 'HANDLER'],
    ]);
    expect(answers.every((a) => !(EVENTS_FIELD in a))).toBe(true);

    gateway.takeLate([call('c', 'APPLY', [{ type: 'tool-call', n: 3 }]), null, 'x']);
    await new Promise((r) => setTimeout(r, 20));
    expect(seen.at(-1)).toBe('events [{"type":"tool-call","n":3}]');
    expect(seen).not.toContain('stat c');
    expect(answers).toHaveLength(2);
    gateway.close();
    channel.port1.close();
    channel.port2.close();
  });

  it('turns a thrown handler error into a failure envelope with its code', async () => {
    const channel = new MessageChannel();
    const gateway = exposeGateway(
      portEndpoint(channel.port1),
      {
        'fs.stat': async () =>
          Promise.reject(Object.assign(new Error('nope'), { cadreError: true, code: 'not_found' })),
      },
      ['fs.stat'],
    );
    const { wrap } = await import('comlink');
    const remote = wrap<Capabilities>(portEndpoint(channel.port2) as never);
    const result = await remote['fs.stat']({ path: 'missing' });
    expect(result).toEqual({ ok: false, error: { code: 'not_found', message: 'nope' } });
    gateway.close();
    channel.port1.close();
    channel.port2.close();
  });
});
