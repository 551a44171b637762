// Benchmark worker: calls the mcp.call capability N times over one of its ports (one per build's
// gateway, and `floor`: a gateway straight to the hub), as an agent's MCP tool does, and reports
// per-call times.
import { parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';

const wrap = (port) =>
  Comlink.wrap({
    postMessage: (m) => port.postMessage(m),
    addEventListener: (_t, l) => port.on('message', (data) => l({ data })),
    removeEventListener: () => undefined,
  });
const remotes = Object.fromEntries(
  Object.entries(workerData.ports).map(([name, port]) => [name, wrap(port)]),
);
parentPort.on('message', async ({ n, tool, input, port }) => {
  const remote = remotes[port];
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const envelope = await remote['mcp.call']({ tool, input });
    times.push(performance.now() - t);
    if (!envelope.ok) throw new Error(JSON.stringify(envelope.error));
  }
  parentPort.postMessage(times);
});
