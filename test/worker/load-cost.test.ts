// What a worker thread builds when it loads: every thread of a fan-out pays it, in CPU before its
// first model request and in memory for as long as it lives. zod schemas are the measurable part
// (a classic zod schema binds every method of its class to itself): a thread builds those its first
// turn needs, not the task schemas (src/shared/task.ts), nor the cassette format with every event
// schema it includes (built on a thread's first replayed request), nor the input schemas of tools
// it may never be offered (each built on its first use).
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { permissionFlags } from '../../src/host/pool/worker-flags.js';
import { WORKER_ENTRY } from '../../src/host/pool/thread-pool.js';

/** Loads the worker bundle as the pool does and counts the zod schema objects built meanwhile. */
function schemasBuiltAtLoad(): Promise<{ schemas: number; task: string }> {
  // zod marks each schema object by defining its `_zod` property: counted around the load only.
  const code = `
    const { parentPort } = require('node:worker_threads');
    const define = Object.defineProperty;
    let schemas = 0;
    Object.defineProperty = function (target, key, descriptor) {
      if (key === '_zod') schemas++;
      return define(target, key, descriptor);
    };
    const loaded = require(${JSON.stringify(WORKER_ENTRY)});
    Object.defineProperty = define;
    parentPort.postMessage({ schemas, task: typeof loaded.default });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, execArgv: permissionFlags() });
    worker.once(
      'message',
      (m: { schemas: number; task: string }) => void worker.terminate().then(() => resolve(m)),
    );
    worker.once('error', reject);
  });
}

describe('a worker thread loading', () => {
  it('builds only the schemas a first turn needs', async () => {
    const { schemas, task } = await schemasBuiltAtLoad();
    expect(task).toBe('function');
    // The count is real (errors, usage and the tool names are built at load)...
    expect(schemas).toBeGreaterThan(10);
    // ...and leaves out the task, cassette and tool input schemas: 44 here, against 385 when the
    // task and cassette schemas were built at load and 180 when the tool inputs still were.
    expect(schemas).toBeLessThan(100);
  });
});
