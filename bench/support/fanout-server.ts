// The fan-out benchmark's model server in a process of its own, so that the benchmark's CPU figures
// count the runtime only (the script is bench/support/fanout-script.ts; arguments: the latency of
// a model call, and optionally the ms between the SSE events of the lead's Task reply). Prints its URL on the
// first line and stops when its standard input ends. Each `log` line on its standard input is
// answered with one JSON line: the requests since the last `log` (who sent each, how many
// messages it carried, when it arrived and when its reply ended, in epoch milliseconds so that
// another process can compare them with its own clock); the log is then cleared.
import { createInterface } from 'node:readline';
import { startFakeAnthropic, systemText } from '../../test/support/fake-anthropic.js';
import { fanoutResponderWith } from './fanout-script.js';

/** One request as the `log` command reports it. */
export interface LoggedRequest {
  /** The agent's system prompt, first 8 characters (`[lead] f` or `[sub] wo`). */
  who: string;
  messages: number;
  startedAt: number;
  endedAt: number | null;
}

const server = await startFakeAnthropic({
  latencyMs: Number(process.argv[2] ?? 300),
  responder: fanoutResponderWith(Number(process.argv[3] ?? 0)),
});
const epoch = (t: number) => performance.timeOrigin + t;
process.stdout.write(`${server.url}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() !== 'log') return;
  const logged: LoggedRequest[] = server.requests.map((r) => ({
    who: systemText(r.body).slice(0, 8),
    messages: r.body.messages.length,
    startedAt: epoch(r.startedAt),
    endedAt: r.endedAt === undefined ? null : epoch(r.endedAt),
  }));
  server.clearLog();
  process.stdout.write(`${JSON.stringify(logged)}\n`);
});
lines.on('close', () => void server.close().then(() => process.exit(0)));
