// The fan-out benchmark's model server in a process of its own, so that the benchmark's CPU figures
// count the runtime only. A lead whose prompt is `go N` answers its first turn with N Task calls;
// each subagent makes a Glob call, then a Read call, then ends. Prints its URL on the first line.
import {
  startFakeAnthropic,
  systemText,
  textReply,
  toolUseReply,
} from '../../test/support/fake-anthropic.js';

const latencyMs = Number(process.argv[2] ?? 300);
const server = await startFakeAnthropic({
  latencyMs,
  responder: (req) => {
    const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
    if (systemText(req.body).startsWith('[lead]')) {
      const first = req.body.messages[0]?.content;
      const n = Number(/go (\d+)/.exec(typeof first === 'string' ? first : JSON.stringify(first))?.[1] ?? 1);
      return turn === 0
        ? toolUseReply(
            Array.from({ length: n }, (_, i) => ({
              name: 'Task',
              input: { description: `part ${i}`, prompt: `part ${i}`, subagent_type: 'sub' },
            })),
          )
        : textReply('lead done');
    }
    if (turn === 0) return toolUseReply([{ name: 'Glob', input: { pattern: 'src/*.ts' } }]);
    if (turn === 1) return toolUseReply([{ name: 'Read', input: { file_path: 'src/m1.ts' } }]);
    return textReply('sub done');
  },
});
process.stdout.write(`${server.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
