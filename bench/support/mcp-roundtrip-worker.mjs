// Benchmark worker: calls the mcp.call capability N times over the gateway, as an agent's MCP tool
// does, and reports per-call times.
import { parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';

const port = workerData.port;
const remote = Comlink.wrap({
  postMessage: (m) => port.postMessage(m),
  addEventListener: (_t, l) => port.on('message', (data) => l({ data })),
  removeEventListener: () => undefined,
});
parentPort.on('message', async ({ n, tool, input }) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const envelope = await remote['mcp.call']({ tool, input });
    times.push(performance.now() - t);
    if (!envelope.ok) throw new Error(JSON.stringify(envelope.error));
  }
  parentPort.postMessage(times);
});
