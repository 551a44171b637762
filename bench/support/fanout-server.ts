// The fan-out benchmark's model server in a process of its own, so that the benchmark's CPU figures
// count the runtime only (the script is bench/support/fanout-script.ts). Prints its URL on the
// first line and stops when its standard input ends.
import { startFakeAnthropic } from '../../test/support/fake-anthropic.js';
import { fanoutResponder } from './fanout-script.js';

const server = await startFakeAnthropic({
  latencyMs: Number(process.argv[2] ?? 300),
  responder: fanoutResponder,
});
process.stdout.write(`${server.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
