// What a worker thread holds of the network and of secrets: the compiled worker bundle, started
// with the pool's permission flags, runs an agent on the real SDK through the host's model
// channel, never loads Node's own fetch (undici), and never sees the API key. Pool threads get an
// environment of their own, without the host's variables.
import { MessageChannel, Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposeGateway } from '../../../src/host/capabilities/gateway.js';
import { serveModelChannel } from '../../../src/host/capabilities/model-http.js';
import { takeQueued } from '../../../src/host/pool/executor.js';
import { ThreadPool, WORKER_ENTRY } from '../../../src/host/pool/thread-pool.js';
import { permissionFlags } from '../../../src/host/pool/worker-flags.js';
import { portEndpoint } from '../../../src/shared/endpoint.js';
import { ok } from '../../../src/shared/errors.js';
import type { AgentEvent } from '../../../src/shared/events.js';
import { HOST_CREDENTIAL } from '../../../src/shared/model-wire.js';
import { DEFAULT_CAPS, type WorkerRunSpec } from '../../../src/shared/run-spec.js';
import { startFakeAnthropic, textReply, type FakeAnthropic } from '../../support/fake-anthropic.js';

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic({ responder: () => textReply('hello from the model') });
});
afterAll(() => server.close());

const spec = (url: string): WorkerRunSpec => ({
  agentId: 'net-1',
  depth: 0,
  agentType: 'general-purpose',
  description: 'network probe',
  system: 'You are a test agent.',
  prompt: 'Say hello.',
  history: [],
  tools: [],
  extraTools: [],
  model: {
    provider: 'anthropic',
    model: 'claude-test-1',
    baseURL: url,
    apiKey: HOST_CREDENTIAL,
    maxTokens: 256,
    streamIdleTimeoutMs: 5_000,
    maxRetries: 0,
  },
  maxTurns: 3,
  permissionMode: 'default',
  cwd: '/project',
  caps: DEFAULT_CAPS,
});

// Runs the bundled task function in a plain thread started like the pool's, with the host ends
// of its three channels served here, and reports what the thread loaded and could see.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
Promise.resolve(require(workerData.entry)).then(async (m) => {
  const result = await m.default(workerData.task);
  parentPort.postMessage({
    result,
    undici: process.moduleLoadList.filter((name) => name.includes('undici')),
    key: Object.values(process.env).some((v) => String(v).includes('sk-secret-in-host-env')),
  });
}, (error) => parentPort.postMessage({ error: String(error) }));
`;

describe('a worker thread and the network', () => {
  it("runs the real SDK through the host's model channel without Node's fetch, and never holds the key", async () => {
    process.env.CADRE_TEST_HOST_SECRET = 'sk-secret-in-host-env';
    const caps = new MessageChannel();
    const control = new MessageChannel();
    const model = new MessageChannel();
    const events: AgentEvent[] = [];
    const gateway = exposeGateway(
      portEndpoint(caps.port1),
      {
        'events.emit': (batch) => {
          events.push(...batch);
          return Promise.resolve(ok(null));
        },
      },
      ['events.emit'],
    );
    const channel = serveModelChannel(portEndpoint(model.port1), {
      agentId: 'net-1',
      agentType: 'general-purpose',
      baseURL: server.url,
      secret: 'sk-real-key',
      projectDir: '/project',
      mode: 'default',
      audit: undefined,
    });
    const worker = new Worker(PROBE, {
      eval: true,
      execArgv: permissionFlags(),
      env: {},
      workerData: {
        entry: WORKER_ENTRY,
        task: { spec: spec(server.url), caps: caps.port2, control: control.port2, model: model.port2 },
      },
      transferList: [caps.port2, control.port2, model.port2],
    });
    try {
      const report = (await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      })) as {
        result?: { status: string; result: string };
        undici?: string[];
        key?: boolean;
        error?: string;
      };
      expect(report.error).toBeUndefined();
      expect(report.result).toMatchObject({ status: 'completed', result: 'hello from the model' });
      expect(report.undici).toEqual([]);
      expect(report.key).toBe(false);
      expect(server.requests[0]?.auth).toEqual({ via: 'bearer', key: 'sk-real-key' });
      // The result came back on another port than the events: take what still waits there, as
      // the run controller does.
      gateway.takeLate(takeQueued(caps.port1));
      expect(events.some((e) => e.type === 'text-delta')).toBe(true);
    } finally {
      delete process.env.CADRE_TEST_HOST_SECRET;
      channel.close();
      gateway.close();
      caps.port1.close();
      control.port1.close();
      model.port1.close();
      await worker.terminate();
    }
  });

  it("gives pool threads an environment without the host's variables", async () => {
    process.env.CADRE_TEST_HOST_SECRET = 'sk-secret-in-host-env';
    const fixture = fileURLToPath(new URL('../../fixtures/workers/env.mjs', import.meta.url));
    const pool = new ThreadPool({
      maxThreads: 1,
      filename: fixture,
      extraReadRoots: [path.dirname(fixture)],
    });
    try {
      const keys = (await (pool.piscina as unknown as { run(task: unknown): Promise<unknown> }).run(
        {},
      )) as string[];
      expect(keys).not.toContain('CADRE_TEST_HOST_SECRET');
      expect(keys.filter((k) => k.startsWith('ANTHROPIC'))).toEqual([]);
    } finally {
      delete process.env.CADRE_TEST_HOST_SECRET;
      await pool.close();
    }
  });
});
