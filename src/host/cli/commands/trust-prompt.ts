// The question a `cadre` command asks on a terminal before project MCP servers first start. Only
// when both stdin and stderr are terminals: a script, a pipe or CI never waits for an answer
// (runs then refuse untrusted servers and say how to trust them).
import { createInterface } from 'node:readline/promises';
import type { TrustPrompt } from '../../capabilities/mcp/trust-gate.js';

/** A prompt on the process's terminal, or undefined when there is none. */
export function terminalTrustPrompt(): TrustPrompt | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (request) => {
    const lines = request.servers.map((s) => `  ${s.id} (${s.origin}): ${s.runs}`);
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(
        `This project (${request.projectDir}) configures MCP servers you have not trusted yet:\n${lines.join('\n')}\n` +
          'They run the commands (or reach the URLs) the project says. Trust them? [y/N] ',
      );
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
}
