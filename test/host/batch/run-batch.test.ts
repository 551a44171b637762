// runtime.batch() as a library caller uses it: results stream as tasks end, a task that cannot
// start still yields one result, and cancelling yields `cancelled` for what was running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/host/runtime.js';
import type { BatchResult } from '../../../src/host/batch/run-batch.js';
import { createFaultRuntime } from '../../support/faults/fault-runtime.js';
import { tempProject } from '../../support/project.js';

let project: Awaited<ReturnType<typeof tempProject>>;
let runtime: Runtime;

beforeAll(async () => {
  project = await tempProject({ 'src/alpha.ts': 'export const alpha = 1;\n' });
  runtime = await createFaultRuntime({ cwd: project.dir, home: project.home, env: {} });
});
afterAll(async () => {
  await runtime.close();
  await project.cleanup();
});

describe('runtime.batch', () => {
  it('yields one result per task, including one that cannot start', async () => {
    const tasks = [
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `ok${i}`,
        agent: 'explore',
        prompt: 'find alpha quick',
      })),
      { id: 'badcwd', agent: 'explore', prompt: 'x', cwd: 'no/such/dir' },
    ];
    const results: BatchResult[] = [];
    for await (const r of runtime.batch(tasks, { concurrency: 3 })) results.push(r);
    expect(results.map((r) => r.id).sort()).toEqual([...tasks.map((t) => t.id)].sort());
    expect(results.filter((r) => r.status === 'completed')).toHaveLength(6);
    const bad = results.find((r) => r.id === 'badcwd');
    expect(bad).toMatchObject({
      status: 'failed',
      error: { code: 'invalid_input', message: expect.stringMatching(/no\/such\/dir/) },
    });
  });

  it('cancelling stops launching and ends running tasks as cancelled', async () => {
    const controller = new AbortController();
    const tasks = Array.from({ length: 10 }, (_, i) => ({
      id: `h${i}`,
      agent: 'explore',
      prompt: 'fault:hang',
      timeout: 60,
    }));
    const results: BatchResult[] = [];
    setTimeout(() => controller.abort(), 500);
    for await (const r of runtime.batch(tasks, { concurrency: 2, signal: controller.signal }))
      results.push(r);
    expect(results).toHaveLength(2);
    expect(results.every((r) => r.status === 'cancelled')).toBe(true);
  });
});
