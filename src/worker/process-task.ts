// One run in a child process (process isolation mode): the start message carries the spec, and the
// same capability protocol is multiplexed over the IPC channel. The run function is a parameter so
// that cadre's own tests can build a worker of their own around the real one; the shipped entry
// passes `runWorker`.
import { channelEndpoint } from '../shared/endpoint.js';
import { toWire } from '../shared/errors.js';
import type { WorkerRunSpec } from '../shared/run-spec.js';
import type { RunWorker } from './thread-task.js';

/** Waits for this process's one run, makes it with `run`, and sends back its result or error. */
export function serveProcessRun(run: RunWorker): void {
  const send = (message: unknown) => process.send?.(message);
  process.on('message', function start(data: unknown) {
    const message = data as { ch?: string; m?: unknown };
    if (message?.ch !== 'start') return;
    process.off('message', start);
    const spec = message.m as WorkerRunSpec;
    run(
      spec,
      channelEndpoint(process, send, 'caps'),
      channelEndpoint(process, send, 'control'),
      channelEndpoint(process, send, 'model'),
    )
      .then((result) => send({ ch: 'result', m: result }))
      .catch((error: unknown) => send({ ch: 'error', m: toWire(error) }));
  });
}
