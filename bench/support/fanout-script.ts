// The fan-out benchmark's scripted model: a lead whose prompt is `go N` answers its first turn
// with N Task calls (then ends); each subagent makes a Glob call, then a Read call, then ends.
// `fanoutResponderWith(streamMs)` writes the lead's Task reply one SSE event every `streamMs`, as a
// model writing its reply does (a real one takes about a second a Task block); by default the
// whole reply comes at once after the call's latency.
import {
  systemText,
  textReply,
  toolUseReply,
  type FakeAnthropicOptions,
} from '../../test/support/fake-anthropic.js';

/** The agents the script answers for (the `--agents` JSON). */
export const FANOUT_AGENTS = JSON.stringify({
  lead: { description: 'lead', prompt: '[lead] fan out', tools: ['Task'] },
  sub: { description: 'sub', prompt: '[sub] work', tools: ['Glob', 'Read'] },
});

/** The fake server's responder, the lead's Task reply written one event every `streamMs`. */
export const fanoutResponderWith =
  (streamMs: number): NonNullable<FakeAnthropicOptions['responder']> =>
  (req) =>
    answer(req, streamMs);

/** The fake server's responder: every reply whole after the call's latency. */
export const fanoutResponder = fanoutResponderWith(0);

function answer(req: Parameters<NonNullable<FakeAnthropicOptions['responder']>>[0], streamMs: number) {
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
          streamMs > 0 ? { eventDelayMs: streamMs } : {},
        )
      : textReply('lead done');
  }
  if (turn === 0) return toolUseReply([{ name: 'Glob', input: { pattern: 'src/*.ts' } }]);
  if (turn === 1) return toolUseReply([{ name: 'Read', input: { file_path: 'src/m1.ts' } }]);
  return textReply('sub done');
}
