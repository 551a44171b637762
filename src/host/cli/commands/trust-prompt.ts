// The question a `cadre` command asks on a terminal before project MCP servers first start. Only
// when both stdin and stderr are terminals: a script, a pipe or CI never waits for an answer
// (runs then refuse untrusted servers and say how to trust them). What it shows comes from the
// project's files, so it is always made inert (--raw included): a person deciding on trust must
// see the command as it is, not what an escape sequence in it draws.
import { createInterface } from 'node:readline/promises';
import type { TrustPrompt, TrustRequest } from '../../capabilities/mcp/trust-gate.js';
import { terminalText } from '../../terminal-text.js';

/** The question for `request`: each server, where it is configured and what it runs, made inert. */
export function trustQuestion(request: TrustRequest): string {
  const line = (text: string) => terminalText(text, { multiline: false });
  const servers = request.servers.map((s) => `  ${line(s.id)} (${line(s.origin)}): ${line(s.runs)}`);
  return (
    `This project (${line(request.projectDir)}) configures MCP servers you have not trusted yet:\n${servers.join('\n')}\n` +
    'They run the commands (or reach the URLs) the project says. Trust them? [y/N] '
  );
}

/** A prompt on the process's terminal, or undefined when there is none. */
export function terminalTrustPrompt(): TrustPrompt | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (request) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(trustQuestion(request));
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
}
