// The live agent tree as lines: one row per agent (name, description, current tool with its most
// telling argument, tokens, elapsed), nested with tree lines, states working / waiting on children
// / needs approval / done, capped at a few rows with "↓ N more", finished agents fading out with a
// pointer to /tasks, and a footer counting agents waiting for the person. Ink's tree and the
// plain terminal tree of `cadre explore` draw these same lines.
import { rowState, waitingForPerson, type AgentRow, type AgentRows, type RowState } from './agent-rows.js';
import type { StyledLine, Tone } from './approval-view.js';
import { clipLine, displayWidth, sanitizeLine } from './terminal-text.js';

/** How the tree is drawn. */
export interface TreeOptions {
  now: number;
  /** Terminal columns. */
  width: number;
  /** Most agent rows shown. */
  maxRows: number;
  /** How long a finished agent stays (dimmed) before it leaves the tree. */
  fadeMs?: number;
  /** The selected row (drawn marked; Esc cancels it). */
  selected?: string;
}

/** A drawn row, with the agent it shows (for selection). */
export interface TreeLine extends StyledLine {
  agentId?: string;
}

const ICON: Record<RowState, string> = {
  working: '\u25cf',
  waiting: '\u25cc',
  approval: '?',
  done: '\u2713',
};

const TONE: Record<RowState, Tone> = { working: 'body', waiting: 'dim', approval: 'warn', done: 'dim' };

/** Elapsed time as `12s`, `3m04s`, `1h02m`. */
function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Tokens as `950`, `12.3k`, `1.2M`. */
function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Rows in tree order (parents before children, siblings by start), with their tree prefix. */
function ordered(rows: AgentRows, visible: (r: AgentRow) => boolean): { row: AgentRow; prefix: string }[] {
  const all = Object.values(rows).filter(visible);
  const ids = new Set(all.map((r) => r.agentId));
  const children = new Map<string | undefined, AgentRow[]>();
  for (const r of all) {
    const parent = r.parentId !== undefined && ids.has(r.parentId) ? r.parentId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), r]);
  }
  for (const list of children.values()) list.sort((a, b) => a.startedAt - b.startedAt);
  const out: { row: AgentRow; prefix: string }[] = [];
  const walk = (parent: string | undefined, indent: string, root: boolean) => {
    const list = children.get(parent) ?? [];
    list.forEach((row, i) => {
      const last = i === list.length - 1;
      out.push({ row, prefix: root ? '' : `${indent}${last ? '\u2514\u2500 ' : '\u251c\u2500 '}` });
      walk(row.agentId, root ? '' : `${indent}${last ? '   ' : '\u2502  '}`, false);
    });
  };
  walk(undefined, '', true);
  return out;
}

function rowText(row: AgentRow, state: RowState, now: number): { head: string; tail: string } {
  const tools = Object.values(row.tools);
  const doing =
    state === 'done'
      ? `${row.status ?? 'done'}${row.refused > 0 ? `, ${row.refused} refused` : ''}`
      : state === 'approval'
        ? 'needs approval'
        : state === 'waiting'
          ? 'waiting on subagents'
          : (tools[tools.length - 1] ?? row.lastTool ?? 'thinking');
  const elapsed = formatElapsed((row.endedAt ?? now) - row.startedAt);
  const refused = state !== 'done' && row.refused > 0 ? ` \u00b7 ${row.refused} refused` : '';
  return {
    head: `${ICON[state]} ${row.agentId} \u00b7 ${row.description}`,
    tail: `  ${doing}${refused} \u00b7 ${formatTokens(row.tokens)} tok \u00b7 ${elapsed}`,
  };
}

/** Fits head and tail into `width` cells: the description and the tool are cut, not the numbers. */
function fit(prefix: string, head: string, tail: string, width: number): string {
  const p = sanitizeLine(prefix);
  const room = width - displayWidth(p);
  const t = clipLine(tail, Math.max(0, Math.floor(room * 0.55)));
  const h = clipLine(head, Math.max(0, room - displayWidth(t)));
  return `${p}${h}${t}`;
}

/** The tree's lines; empty when no agent is running or fading. */
export function treeLines(rows: AgentRows, options: TreeOptions): TreeLine[] {
  const fade = options.fadeMs ?? 4000;
  const visible = (r: AgentRow) => r.endedAt === undefined || options.now - r.endedAt < fade;
  const list = ordered(rows, visible);
  const finishedHidden = Object.values(rows).filter((r) => !visible(r)).length;
  const lines: TreeLine[] = [];
  for (const { row, prefix } of list.slice(0, Math.max(1, options.maxRows))) {
    const state = rowState(row, rows);
    const { head, tail } = rowText(row, state, options.now);
    const mark = row.agentId === options.selected ? '\u276f ' : '';
    lines.push({
      text: fit(`${mark}${prefix}`, head, tail, options.width),
      tone: row.agentId === options.selected ? 'title' : TONE[state],
      agentId: row.agentId,
    });
  }
  const more = list.length - Math.max(1, options.maxRows);
  if (more > 0) lines.push({ text: `\u2193 ${more} more`, tone: 'dim' });
  const waiting = waitingForPerson(rows);
  const footer = [
    ...(waiting > 0 ? [`${waiting} agent${waiting === 1 ? '' : 's'} waiting for you`] : []),
    ...(finishedHidden > 0 && lines.length > 0 ? [`${finishedHidden} finished (/tasks)`] : []),
  ];
  if (footer.length > 0 && lines.length > 0)
    lines.push({
      text: clipLine(footer.join(' \u00b7 '), options.width),
      tone: waiting > 0 ? 'warn' : 'dim',
    });
  return lines;
}
