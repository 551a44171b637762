// The tools the model's provider runs itself (Anthropic's web search), as a run reports them: their
// calls and results arrive inside the assistant's message, already done, and become the same
// tool-call and tool-result events a run's own tools produce.
import type { Block } from './conversation.js';

/** The body of an event about a server tool (the loop adds identity and time). */
export type ServerToolEvent =
  | { type: 'tool-call'; toolUseId: string; name: string; input: unknown }
  | {
      type: 'tool-result';
      toolUseId: string;
      name: string;
      isError: boolean;
      content: string;
      durationMs: number;
    };

/**
 * The provider's own tool calls and results in a finished message (web search), as tool-call and
 * tool-result events: the run's watchers and the host's audit log see each search.
 */
export function serverToolEvents(content: readonly Block[]): ServerToolEvent[] {
  const names = new Map<string, string>();
  const out: ServerToolEvent[] = [];
  for (const block of content) {
    if (block['type'] === 'server_tool_use') {
      const name = block['name'] === 'web_search' ? 'WebSearch' : String(block['name']);
      names.set(String(block['id']), name);
      out.push({ type: 'tool-call', toolUseId: String(block['id']), name, input: block['input'] ?? {} });
    } else if (block['type'] === 'web_search_tool_result') {
      const id = String(block['tool_use_id']);
      const result = block['content'];
      const isError = !Array.isArray(result);
      const preview = Array.isArray(result)
        ? result
            .map((r: unknown) =>
              typeof r === 'object' && r !== null ? String((r as { url?: unknown }).url ?? '') : '',
            )
            .join('\n')
        : `error: ${String((result as { error_code?: unknown } | undefined)?.error_code ?? 'unknown')}`;
      out.push({
        type: 'tool-result',
        toolUseId: id,
        name: names.get(id) ?? 'WebSearch',
        isError,
        content: preview.slice(0, 2000),
        durationMs: 0,
      });
    }
  }
  return out;
}
