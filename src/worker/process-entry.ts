// The entry of process isolation mode: one child process per run, the same capability protocol
// multiplexed over the IPC channel. Wiring only.
import { channelEndpoint } from '../shared/endpoint.js';
import { toWire } from '../shared/errors.js';
import type { WorkerRunSpec } from '../shared/run-spec.js';
import { runWorker } from './run.js';

const send = (message: unknown) => process.send?.(message);

process.on('message', function start(data: unknown) {
  const message = data as { ch?: string; m?: unknown };
  if (message?.ch !== 'start') return;
  process.off('message', start);
  const spec = message.m as WorkerRunSpec;
  runWorker(
    spec,
    channelEndpoint(process, send, 'caps'),
    channelEndpoint(process, send, 'control'),
    channelEndpoint(process, send, 'model'),
  )
    .then((result) => send({ ch: 'result', m: result }))
    .catch((error: unknown) => send({ ch: 'error', m: toWire(error) }));
});
