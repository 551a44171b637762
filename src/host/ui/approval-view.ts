// The approval prompt as lines: the title (`explore › worker-3 wants to run Bash (1 of 3)`), the
// exact command or the file and a bounded diff, the rule or mode that made it an ask, and the key
// row. The Ink prompt and the plain terminal prompt of `cadre run` render these same lines, so
// both show the same thing; every model-controlled part is sanitized here.
import type { ApprovalRequest } from '../approvals/types.js';
import { sessionScope, type ApprovalView } from './approval-queue.js';
import { clipLine, wrapCells, wrapLine } from './terminal-text.js';

/** How a line is drawn (the Ink prompt maps tones to colours; the plain prompt to SGR codes). */
export type Tone = 'title' | 'body' | 'dim' | 'add' | 'remove' | 'keys' | 'warn';

/** One line of a prompt. */
export interface StyledLine {
  text: string;
  tone: Tone;
}

/** Who asks: `parent › agent`, or the agent alone at the top of a tree. */
function askerLabel(request: ApprovalRequest): string {
  return request.parentType !== undefined
    ? `${request.parentType} \u203a ${request.agentId}`
    : request.agentId;
}

/** The title line. */
export function approvalTitle(request: ApprovalRequest, total: number): string {
  const action = request.action ?? request.capability;
  return `${askerLabel(request)} wants to ${action} (1 of ${Math.max(1, total)})`;
}

function toneOf(line: string): Tone {
  if (line.startsWith('+ ')) return 'add';
  if (line.startsWith('- ')) return 'remove';
  return 'body';
}

/** The key row; `a` names the rules an "always" would grant. */
function keyRow(request: ApprovalRequest, detail: boolean): string {
  const scope = sessionScope(request);
  const always =
    scope.length > 0 ? `[a] always this session: ${scope.join(', ')}` : '[a] (no rule to remember)';
  return `[y] allow once  [n/Esc] deny  ${always}  [d] ${detail ? 'hide' : 'show'} full input`;
}

/**
 * The prompt's lines for `view`, each cut to `width` cells; the body (preview or full input) is
 * capped at `maxBody` lines so the prompt always fits the terminal.
 */
export function approvalLines(view: ApprovalView, width: number, maxBody = 20): StyledLine[] {
  const r = view.head;
  if (!r) return [];
  const cut = (text: string) => clipLine(text, Math.max(10, width));
  const lines: StyledLine[] = [{ text: cut(approvalTitle(r, view.total)), tone: 'title' }];
  // Long lines are wrapped, never cut: the end of a command is where a hostile one hides its
  // payload (`echo <200 harmless characters>; curl … | sh`).
  const source = (view.detail ? (r.detail ?? r.summary) : (r.preview ?? r.summary)).split('\n');
  const body = source.flatMap((line) => {
    const tone = view.detail ? 'body' : toneOf(line);
    return wrapCells(line, Math.max(10, width - 4)).map((text, i) => ({
      text: `${i === 0 ? '  ' : '    '}${text}`,
      tone,
    }));
  });
  const shown = body.slice(0, Math.max(1, maxBody));
  lines.push(...shown);
  if (body.length > shown.length)
    lines.push({
      text: cut(`  \u2026 ${body.length - shown.length} more lines${view.detail ? '' : ' (d: full input)'}`),
      tone: 'dim',
    });
  // The rule or mode that made it an ask is what a person needs to decide: wrapped, not cut.
  for (const [i, line] of wrapLine(r.reason, Math.max(10, width - 7), 3).entries())
    lines.push({ text: `${i === 0 ? '  why: ' : '       '}${line}`, tone: 'dim' });
  lines.push({
    text: cut(view.settling ? `  (wait) ${keyRow(r, view.detail)}` : `  ${keyRow(r, view.detail)}`),
    tone: view.settling ? 'dim' : 'keys',
  });
  return lines;
}
