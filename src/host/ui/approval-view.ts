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

/** Which body a prompt shows: the preview, or one page of the full input (`d` steps through them). */
interface BodyState {
  detail: boolean;
  /** The page shown (0-based) and how many there are, for the full input. */
  page: number;
  pages: number;
}

/** The key row; `a` names the rules an "always" would grant. */
function keyRow(request: ApprovalRequest, body: BodyState): string {
  const scope = sessionScope(request);
  const always =
    scope.length > 0 ? `[a] always this session: ${scope.join(', ')}` : '[a] (no rule to remember)';
  const d = !body.detail
    ? 'show full input'
    : body.page + 1 < body.pages
      ? `next page (${body.page + 1} of ${body.pages})`
      : body.pages > 1
        ? `hide full input (page ${body.page + 1} of ${body.pages})`
        : 'hide full input';
  return `[y] allow once  [n/Esc] deny  ${always}  [d] ${d}`;
}

/** The body lines of a request: its preview, or its full input. */
function bodyLines(r: ApprovalRequest, detail: boolean, width: number): StyledLine[] {
  const source = (detail ? (r.detail ?? r.summary) : (r.preview ?? r.summary)).split('\n');
  return source.flatMap((line) => {
    const tone = detail ? 'body' : toneOf(line);
    return wrapCells(line, Math.max(10, width - 4)).map((text, i) => ({
      text: `${i === 0 ? '  ' : '    '}${text}`,
      tone,
    }));
  });
}

/**
 * The prompt's lines for `view`, each at most `width` cells; the body (preview or full input) is
 * capped at `maxBody` lines so the prompt always fits the terminal. The full input is shown a page
 * of `maxBody` lines at a time: `d` steps through every page, so no part of it is out of reach.
 */
export function approvalLines(view: ApprovalView, width: number, maxBody = 20): StyledLine[] {
  const r = view.head;
  if (!r) return [];
  const room = Math.max(1, maxBody);
  const cut = (text: string) => clipLine(text, Math.max(10, width));
  const lines: StyledLine[] = [{ text: cut(approvalTitle(r, view.total)), tone: 'title' }];
  // Long lines are wrapped, never cut: the end of a command is where a hostile one hides its
  // payload (`echo <200 harmless characters>; curl … | sh`).
  // `d` presses cycle: the preview, then each page of the full input, then the preview again. The
  // full input is laid out only once `d` was pressed (a redraw of the preview never pays for it).
  const presses = view.page ?? (view.detail ? 1 : 0);
  const full = presses > 0 ? bodyLines(r, true, width) : [];
  const pages = Math.max(1, Math.ceil(full.length / room));
  const step = presses % (pages + 1);
  const state: BodyState = { detail: step > 0, page: Math.max(0, step - 1), pages };
  const body = state.detail ? full : bodyLines(r, false, width);
  const from = state.detail ? state.page * room : 0;
  const shown = body.slice(from, from + room);
  lines.push(...shown);
  const after = body.length - from - shown.length;
  if (after > 0)
    lines.push({
      text: cut(`  \u2026 ${after} more lines${state.detail ? ' (d: next page)' : ' (d: full input)'}`),
      tone: 'dim',
    });
  // The rule or mode that made it an ask is what a person needs to decide: wrapped, not cut.
  for (const [i, line] of wrapLine(r.reason, Math.max(10, width - 7), 3).entries())
    lines.push({ text: `${i === 0 ? '  why: ' : '       '}${line}`, tone: 'dim' });
  // Wrapped, never cut: every rule an "always" remembers is on screen, however many there are.
  const keys = view.settling ? `(wait) ${keyRow(r, state)}` : keyRow(r, state);
  const tone = view.settling ? 'dim' : 'keys';
  for (const [i, text] of wrapCells(keys, Math.max(10, width - 4)).entries())
    lines.push({ text: `${i === 0 ? '  ' : '    '}${text}`, tone });
  return lines;
}
