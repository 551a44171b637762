// Benchmark worker: calls one capability N times over the gateway and reports per-call times.
import { parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';

const port = workerData.port;
const remote = Comlink.wrap({
  postMessage: (m) => port.postMessage(m),
  addEventListener: (_t, l) => port.on('message', (data) => l({ data })),
  removeEventListener: () => undefined,
});
const times = [];
for (let i = 0; i < workerData.n; i++) {
  const t = performance.now();
  await remote['fs.stat']({ path: `file-${i}` });
  times.push(performance.now() - t);
}
parentPort.postMessage(times);
