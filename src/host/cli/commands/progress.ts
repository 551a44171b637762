// Progress lines on stderr while agents run: which agent started, each tool call, each call the host
// refused, how each ended.
import type { AgentEvent } from '../../../shared/events.js';
import { EffectTally } from '../../agents/effect-tally.js';
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

/** The first sentence of a refusal's reason, short enough for a progress line. */
function firstSentence(reason: string): string {
  const sentence = /^.*?[.;](?=\s|$)/.exec(reason)?.[0] ?? reason;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}

/**
 * Returns an event listener that prints progress to `io.stderr`. Every event also goes to `tally`
 * first, so the closing line of each run can say how many of its calls were refused.
 */
export function progressPrinter(
  io: CliIO,
  label?: (event: AgentEvent) => string,
  tally: EffectTally = new EffectTally(),
): (event: AgentEvent) => void {
  return (event) => {
    tally.observe(event);
    const who = label?.(event) ?? event.agentId;
    const indent = '  '.repeat(event.depth);
    switch (event.type) {
      case 'effect-refused':
        io.stderr(`${indent}  ✗ refused: ${event.summary} — ${firstSentence(event.reason)}\n`);
        break;
      case 'agent-start':
        io.stderr(`${indent}▶ ${who} (${event.agentType}, model ${event.model})\n`);
        break;
      case 'tool-call':
        io.stderr(`${indent}  · ${event.name} ${brief(event.input)}\n`);
        break;
      case 'notice':
        io.stderr(`${indent}  ! ${event.message}\n`);
        break;
      case 'agent-end': {
        const o = event.output;
        const refused = tally.counts(event.agentId).refused;
        io.stderr(
          `${indent}■ ${who} ${o.status} in ${(o.durationMs / 1000).toFixed(1)} s, ${o.turns} turns, ${o.toolCalls} tool calls${refused > 0 ? ` (${refused} refused)` : ''}${o.error ? ` — ${o.error.message}` : ''}\n`,
        );
        break;
      }
      default:
        break;
    }
  };
}
