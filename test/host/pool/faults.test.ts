// Kernel guarantees with real worker threads: hard kills, crash isolation, one terminal status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/host/runtime.js';
import { createFaultRuntime } from '../../support/faults/fault-runtime.js';
import { tempProject } from '../../support/project.js';

let project: Awaited<ReturnType<typeof tempProject>>;
let runtime: Runtime;

beforeAll(async () => {
  project = await tempProject({ 'src/a.ts': 'export const a = 1;\n' });
  runtime = await createFaultRuntime({
    cwd: project.dir,
    home: project.home,
    env: {},
    memoryLimitMb: 64,
    concurrency: 4,
  });
});
afterAll(async () => {
  await runtime.close();
  await project.cleanup();
});

const run = (prompt: string, timeout = 1) =>
  runtime.run({ subagent_type: 'general-purpose', prompt, timeout });

describe('hard limits in thread mode', () => {
  it('kills a CPU-bound runaway within 200 ms of its deadline', async () => {
    const out = await run('fault:spin', 0.5);
    expect(out.status).toBe('timeout');
    expect(out.durationMs).toBeGreaterThanOrEqual(480);
    expect(out.durationMs - 500).toBeLessThan(200);
  });

  it('a worker that throws ends crashed with the reason, and the host keeps going', async () => {
    const out = await run('fault:throw');
    expect(out.status).toBe('crashed');
    expect(out.error?.reason).toBe('worker_error');
    expect(out.error?.message).toMatch(/injected fault/);
    expect((await run('find a')).status).toBe('completed');
  });

  it('a worker that calls process.exit ends crashed (worker_exit)', async () => {
    const out = await run('fault:exit');
    expect(out.status).toBe('crashed');
    expect(out.error?.reason).toBe('worker_exit');
  });

  it('many small allocations end crashed / out_of_memory with the host alive', async () => {
    const out = await run('fault:oom-small', 20);
    expect(out.status).toBe('crashed');
    expect(out.error?.reason).toBe('out_of_memory');
    expect((await run('find a')).status).toBe('completed');
  });

  it('a hung worker is ended by its deadline', async () => {
    const out = await run('fault:hang', 0.4);
    expect(out.status).toBe('timeout');
  });
});
