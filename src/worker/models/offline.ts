// The offline model client: the embedded default when no key is configured. It plays a model's
// part with no network: plans real Glob/Grep/Read calls from the task's keywords, then writes a
// findings report, emitting the same normalized events as the anthropic client. Deterministic.
import { CadreError } from '../../shared/errors.js';
import type { ModelConfig } from '../../shared/run-spec.js';
import type { AssistantBlock, ModelClient, ModelRequest, ModelStreamEvent } from './model-client.js';
import { readState } from './offline/conversation.js';
import { planStep } from './offline/planner.js';
import { buildReport } from './offline/report.js';

export { OFFLINE_NOTICE } from './offline/report.js';

/** Builds the offline client. */
export function createOfflineClient(_config?: Pick<ModelConfig, 'model'>): ModelClient {
  return {
    kind: 'offline',
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
      if (signal.aborted) throw new CadreError('cancelled', 'the model call was cancelled');
      const inputTokens = estimateTokens(
        request.system.length +
          JSON.stringify(request.messages).length +
          JSON.stringify(request.tools).length,
      );
      const usage = {
        input_tokens: inputTokens,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      };
      yield { type: 'usage', usage: { ...usage }, estimated: true };
      const state = readState(request.messages);
      const step = planStep(request, state);
      const content: AssistantBlock[] = [];
      let text: string;
      if (step.kind === 'tools') {
        text = step.note;
        content.push({ type: 'text', text });
      } else {
        text = buildReport(
          state,
          request.tools.map((t) => t.name),
          step.analysis,
        );
        content.push({ type: 'text', text });
      }
      for (const piece of chunks(text, 4)) yield { type: 'text-delta', text: piece };
      if (step.kind === 'tools') {
        step.calls.forEach((call, i) =>
          content.push({
            type: 'tool_use',
            id: `toolu_offline_${state.phase}_${i}`,
            name: call.name,
            input: call.input,
          }),
        );
        for (const block of content.slice(1)) {
          yield {
            type: 'tool-use',
            id: String(block['id']),
            name: String(block['name']),
            input: block['input'] as Record<string, unknown>,
          };
        }
      }
      usage.output_tokens = estimateTokens(JSON.stringify(content).length);
      yield { type: 'usage', usage, estimated: true };
      yield { type: 'message-end', content, stopReason: step.kind === 'tools' ? 'tool_use' : 'end_turn' };
    },
  };
}

/** Tokens estimated from characters (about four per token). */
function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Splits text into about `n` pieces at line breaks, as a streamed reply would arrive. */
function chunks(text: string, n: number): string[] {
  const lines = text.split(/(?<=\n)/);
  const per = Math.max(1, Math.ceil(lines.length / n));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += per) out.push(lines.slice(i, i + per).join(''));
  return out;
}
