// Progress lines on stderr while agents run: which agent started, each tool call, how each ended.
import type { AgentEvent } from '../../../shared/events.js';
import { clipLine, sanitizeLine } from '../../ui/terminal-text.js';
import type { CliIO } from '../context.js';

function brief(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const o = input as Record<string, unknown>;
  const key = ['file_path', 'pattern', 'command', 'path', 'description', 'subagent_type'].find(
    (k) => typeof o[k] === 'string',
  );
  const text = key ? String(o[key]) : JSON.stringify(input);
  return clipLine(text, 80);
}

/** Returns an event listener that prints progress to `io.stderr`. */
export function progressPrinter(
  io: CliIO,
  label?: (event: AgentEvent) => string,
): (event: AgentEvent) => void {
  return (event) => {
    // Model-controlled text (tool arguments, messages) never reaches the terminal raw.
    const who = sanitizeLine(label?.(event) ?? event.agentId);
    const indent = '  '.repeat(event.depth);
    switch (event.type) {
      case 'agent-start':
        io.stderr(
          `${indent}▶ ${who} (${sanitizeLine(event.agentType)}, model ${sanitizeLine(event.model)})\n`,
        );
        break;
      case 'tool-call':
        io.stderr(`${indent}  · ${clipLine(event.name, 60)} ${brief(event.input)}\n`);
        break;
      case 'notice':
        io.stderr(`${indent}  ! ${sanitizeLine(event.message)}\n`);
        break;
      case 'agent-end': {
        const o = event.output;
        io.stderr(
          `${indent}■ ${who} ${o.status} in ${(o.durationMs / 1000).toFixed(1)} s, ${o.turns} turns, ${o.toolCalls} tool calls${o.error ? ` — ${sanitizeLine(o.error.message)}` : ''}\n`,
        );
        break;
      }
      default:
        break;
    }
  };
}
