// Progress lines on stderr while agents run: which agent started, each tool call, each call the host
// refused (with the rule that would allow it), how each ended. Everything in them that a model, a
// tool or an agent file wrote goes through the terminal cleaner.
import type { AgentEvent } from '../../../shared/events.js';
import { EffectTally } from '../../agents/effect-tally.js';
import { refusalText } from '../../refusal-text.js';
import { terminalCleaner, type TerminalCleaner } from '../../terminal-text.js';
import type { CliIO } from '../context.js';

function brief(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const o = input as Record<string, unknown>;
  const key = ['file_path', 'pattern', 'command', 'path', 'description', 'subagent_type'].find(
    (k) => typeof o[k] === 'string',
  );
  const text = key ? String(o[key]) : JSON.stringify(input);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Returns an event listener that prints progress to `io.stderr`, cleaned by `clean`. Every event
 * also goes to `tally` first, so the closing line of each run can say how many of its calls were
 * refused; `shown`, when given, limits the lines printed to those event types (the tally still sees
 * every event).
 */
export function progressPrinter(
  io: CliIO,
  label?: (event: AgentEvent) => string,
  clean: TerminalCleaner = terminalCleaner(false),
  tally: EffectTally = new EffectTally(),
  shown?: ReadonlySet<AgentEvent['type']>,
): (event: AgentEvent) => void {
  const c = clean.line;
  return (event) => {
    tally.observe(event);
    if (shown !== undefined && !shown.has(event.type)) return;
    const who = c(label?.(event) ?? event.agentId);
    const indent = '  '.repeat(event.depth);
    switch (event.type) {
      case 'effect-refused':
        io.stderr(`${indent}  ✗ refused: ${c(event.summary)} — ${c(refusalText(event))}\n`);
        break;
      case 'agent-start':
        io.stderr(`${indent}▶ ${who} (${c(event.agentType)}, model ${c(event.model)})\n`);
        break;
      case 'tool-call':
        io.stderr(`${indent}  · ${c(event.name)} ${c(brief(event.input))}\n`);
        break;
      case 'notice':
        io.stderr(`${indent}  ! ${c(event.message)}\n`);
        break;
      case 'agent-end': {
        const o = event.output;
        const refused = tally.counts(event.agentId).refused;
        io.stderr(
          `${indent}■ ${who} ${o.status} in ${(o.durationMs / 1000).toFixed(1)} s, ${o.turns} turns, ${o.toolCalls} tool calls${refused > 0 ? ` (${refused} refused)` : ''}${o.error ? ` — ${c(o.error.message)}` : ''}\n`,
        );
        break;
      }
      default:
        break;
    }
  };
}
