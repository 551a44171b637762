// Threads started ahead of need: real Piscina threads running the compiled worker bundle under the
// permission flags. They park until a run of their source takes them (no thread is started for
// that run), go back to the pool when their source wants fewer, and keep every guarantee of a pool
// thread: one run each, the hard kill, the memory cap, the permission model.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../../../src/host/pool/run-controller.js';
import { threadExecutor } from '../../../src/host/pool/executor.js';
import { ThreadPool } from '../../../src/host/pool/thread-pool.js';
import { HOST_CREDENTIAL } from '../../../src/shared/model-wire.js';
import { DEFAULT_CAPS, type WorkerRunSpec } from '../../../src/shared/run-spec.js';
import { startFakeAnthropic, textReply, type FakeAnthropic } from '../../support/fake-anthropic.js';
import { FAULT_WORKERS } from '../../support/faults/fault-runtime.js';
import type { Fault } from '../../support/faults/inject-fault.js';

let server: FakeAnthropic;
let pool: ThreadPool | undefined;
beforeAll(async () => {
  server = await startFakeAnthropic({ responder: () => textReply('done') });
});
afterAll(() => server.close());
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

/** A run's spec; with `fault`, a run the test-only worker fails on purpose (faults/fault-run.ts). */
const spec = (agentId: string, parentId: string, fault?: Fault): WorkerRunSpec => ({
  agentId,
  parentId,
  depth: 1,
  agentType: 'sub',
  description: 'sub',
  system: 'You are a test agent.',
  prompt: fault ? `fault:${fault}` : 'Answer.',
  history: [],
  tools: [],
  extraTools: [],
  model: {
    provider: 'anthropic',
    model: 'claude-test-1',
    baseURL: server.url,
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

/** Pool options that run the test-only worker: the shipped one, with faults. */
const faultWorker = { filename: FAULT_WORKERS.thread, extraReadRoots: [...FAULT_WORKERS.readRoots] };

/** Runs `spec` through the run controller on `p`, as the launcher does. */
function run(p: ThreadPool, s: WorkerRunSpec, cancel?: AbortSignal) {
  return runToEnd(
    threadExecutor(p),
    s,
    {
      granted: [],
      handlers: () => ({}),
      onEvent: () => undefined,
      model: {
        agentId: s.agentId,
        agentType: s.agentType,
        baseURL: server.url,
        secret: 'k',
        projectDir: '/project',
        mode: 'default',
        audit: undefined,
      },
    },
    { timeoutMs: 20_000, idleTimeoutMs: 20_000 },
    cancel,
  );
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('threads started ahead of need', () => {
  it('park while wanted, and runs of their source take them instead of starting threads', async () => {
    const p = (pool = new ThreadPool({ maxThreads: 8, minThreads: 1, memoryLimitMb: 256 }));
    p.prestart('lead-1', 3);
    // The pool's warm thread parks first; new threads load one per core at a time.
    expect(p.threads().length).toBeLessThanOrEqual(1 + Math.max(1, os.availableParallelism()));
    await until('3 parked threads', () => p.parkedThreads.ready === 3);
    // The idle warm thread is one of the three.
    expect(p.threads()).toHaveLength(3);
    const ends = await Promise.all([0, 1, 2].map((i) => run(p, spec(`sub-${i}`, 'lead-1'))));
    expect(ends.map((e) => e.status)).toEqual(['completed', 'completed', 'completed']);
    expect(ends.map((e) => e.result)).toEqual(['done', 'done', 'done']);
    // No thread was started for the three runs, and each took its own thread.
    expect(p.threads()).toHaveLength(3);
    expect(p.parkedThreads).toEqual({ ready: 0, loading: 0 });
    // The source's want was used up: nothing is started again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(p.threads()).toHaveLength(3);
    // A warm pool parks nothing: its idle threads serve the next runs as they are.
    await until('3 idle threads', () => p.piscina.idleThreads === 3);
    p.prestart('lead-1b', 3);
    expect(p.parkedThreads).toEqual({ ready: 0, loading: 0 });
    expect(p.threads()).toHaveLength(3);
  });

  it('a run takes a thread that is still loading, and that thread still runs it alone', async () => {
    const p = (pool = new ThreadPool({ maxThreads: 4, minThreads: 0, memoryLimitMb: 256 }));
    p.prestart('lead-2', 1);
    expect(p.parkedThreads).toEqual({ ready: 0, loading: 1 });
    const [first, second] = await Promise.all([
      run(p, spec('sub-a', 'lead-2')),
      run(p, spec('sub-b', 'lead-2')),
    ]);
    expect([first.status, second.status]).toEqual(['completed', 'completed']);
    expect(p.threads()).toHaveLength(2);
  });

  it('when its source wants fewer, its threads go back to the pool as idle threads', async () => {
    const p = (pool = new ThreadPool({ maxThreads: 8, minThreads: 0, memoryLimitMb: 256 }));
    p.prestart('lead-3', 2);
    await until('2 parked threads', () => p.parkedThreads.ready === 2);
    p.prestart('lead-3', 0);
    expect(p.parkedThreads).toEqual({ ready: 0, loading: 0 });
    // Released threads are ordinary idle pool threads, ready for the next run.
    await until('2 idle threads', () => p.piscina.idleThreads === 2);
    const end = await run(p, spec('sub-c', 'none'));
    expect(end.status).toBe('completed');
    expect(p.threads()).toHaveLength(2);
    // Wanted again: the two idle threads park first, then new threads start; released while
    // still loading, those become idle threads once loaded.
    p.prestart('lead-4', 4);
    const started = p.threads().length;
    expect(started).toBeGreaterThan(2);
    p.prestart('lead-4', 0);
    expect(p.parkedThreads).toEqual({ ready: 0, loading: 0 });
    await until('every thread idle', () => p.piscina.idleThreads === started);
  });

  it('a run on a parked thread is killed by its signal, CPU-bound or not', async () => {
    const p = (pool = new ThreadPool({ maxThreads: 4, minThreads: 0, memoryLimitMb: 256, ...faultWorker }));
    p.prestart('lead-5', 1);
    await until('a parked thread', () => p.parkedThreads.ready === 1);
    const cancel = new AbortController();
    const ending = run(p, spec('spinner', 'lead-5', 'spin'), cancel.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const at = performance.now();
    cancel.abort();
    const end = await ending;
    expect(end.status).toBe('cancelled');
    expect(performance.now() - at).toBeLessThan(500);
    await until('the thread to be gone', () => p.threads().length === 0);
  });

  it('a parked thread has the memory cap of the pool', async () => {
    const p = (pool = new ThreadPool({ maxThreads: 2, minThreads: 0, memoryLimitMb: 64, ...faultWorker }));
    p.prestart('lead-6', 1);
    await until('a parked thread', () => p.parkedThreads.ready === 1);
    const end = await run(p, spec('hog', 'lead-6', 'oom-small'));
    expect(end.status).toBe('crashed');
    expect(end.error?.code).toBe('out_of_memory');
  });

  it('a parked thread runs under the permission model', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-park-perm-'));
    const outside = path.join(dir, 'secret.txt');
    const writeTo = path.join(dir, 'escaped.txt');
    await writeFile(outside, 'top secret');
    const fixture = fileURLToPath(new URL('../../fixtures/workers/park-escape.mjs', import.meta.url));
    const p = (pool = new ThreadPool({
      maxThreads: 2,
      minThreads: 0,
      filename: fixture,
      extraReadRoots: [path.dirname(fixture)],
    }));
    try {
      p.prestart('lead-7', 1);
      await until('a parked thread', () => p.parkedThreads.ready === 1);
      const [caps, control, model] = [new MessageChannel(), new MessageChannel(), new MessageChannel()];
      const result = (await p.run(
        {
          spec: { outside, writeTo } as unknown as WorkerRunSpec,
          caps: caps.port2,
          control: control.port2,
          model: model.port2,
        },
        new AbortController().signal,
        'lead-7',
      )) as unknown as { attempts: Record<string, string>; permission: boolean };
      expect(result.permission).toBe(true);
      expect(result.attempts).toEqual({
        readFileSync: 'ERR_ACCESS_DENIED',
        readFile: 'ERR_ACCESS_DENIED',
        writeFile: 'ERR_ACCESS_DENIED',
        spawn: 'ERR_ACCESS_DENIED',
        worker: 'ERR_ACCESS_DENIED',
      });
      await expect(readFile(writeTo)).rejects.toMatchObject({ code: 'ENOENT' });
      for (const c of [caps, control, model]) c.port1.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
