// The live agent tree as data: one row per agent, folded from the runs' events by a pure reducer
// (no Ink, no clock of its own), so the chat, `cadre explore` on a TTY and the tests share it.
import { REFUSAL_CODES } from '../../shared/errors.js';
import type { AgentEvent } from '../../shared/events.js';
import type { TaskStatus } from '../../shared/task.js';
import { totalTokens } from '../../shared/task.js';

/** What an agent is doing, as the tree shows it. */
export type RowState = 'working' | 'waiting' | 'approval' | 'done';

/** One agent. */
export interface AgentRow {
  agentId: string;
  parentId?: string;
  depth: number;
  agentType: string;
  description: string;
  background: boolean;
  startedAt: number;
  endedAt?: number;
  status?: TaskStatus;
  /** Tools running now: tool-use id -> `Name telling-argument` (raw; sanitized when drawn). */
  tools: Readonly<Record<string, string>>;
  /** The latest tool started (shown when none is running). */
  lastTool?: string;
  tokens: number;
  /** Approval requests of this agent waiting for the person. */
  approvals: number;
  /** Calls the grant, the policy or the person refused (the host's `effect-refused` events). */
  refused: number;
  /** The final text, once the run ended. */
  result?: string;
}

/** Every agent seen, by id. */
export type AgentRows = Readonly<Record<string, AgentRow>>;

/**
 * True when a tool result says the call was refused rather than failed: its error starts with one of
 * the host's refusal codes (the same list the host reports `effect-refused` for).
 */
export function isRefusal(event: { isError: boolean; content: string }): boolean {
  if (!event.isError) return false;
  const code = /^([a-z_]+): /.exec(event.content)?.[1];
  return code !== undefined && REFUSAL_CODES.has(code);
}

/** The most telling argument of a tool call: its command, file, pattern or subagent. */
export function toolArgument(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const o = input as Record<string, unknown>;
  for (const key of [
    'command',
    'file_path',
    'pattern',
    'path',
    'subagent_type',
    'url',
    'agent_id',
    'description',
  ]) {
    const value = o[key];
    if (typeof value === 'string')
      return key === 'subagent_type' ? `${value}: ${String(o.description ?? '')}` : value;
  }
  return '';
}

function withRow(rows: AgentRows, id: string, change: (row: AgentRow) => AgentRow): AgentRows {
  const row = rows[id];
  return row ? { ...rows, [id]: change(row) } : rows;
}

/** Folds one event into the rows (a new object when something changed, the same one otherwise). */
export function reduceRows(rows: AgentRows, event: AgentEvent): AgentRows {
  switch (event.type) {
    case 'agent-start':
      return {
        ...rows,
        [event.agentId]: {
          agentId: event.agentId,
          ...(event.parentId !== undefined ? { parentId: event.parentId } : {}),
          depth: event.depth,
          agentType: event.agentType,
          description: event.description,
          background: event.background === true,
          startedAt: event.at,
          tools: {},
          tokens: 0,
          approvals: 0,
          refused: 0,
        },
      };
    case 'tool-call': {
      const label = `${event.name} ${toolArgument(event.input)}`.trim();
      return withRow(rows, event.agentId, (r) => ({
        ...r,
        tools: { ...r.tools, [event.toolUseId]: label },
        lastTool: label,
      }));
    }
    case 'tool-result':
      return withRow(rows, event.agentId, (r) => {
        const { [event.toolUseId]: _done, ...tools } = r.tools;
        return { ...r, tools };
      });
    // Counted from the host's own report, as the CLI's progress lines and exit codes count them.
    case 'effect-refused':
      return withRow(rows, event.agentId, (r) => ({ ...r, refused: r.refused + 1 }));
    case 'usage':
      return withRow(rows, event.agentId, (r) => ({ ...r, tokens: totalTokens(event.usage) }));
    case 'approval-request':
      return withRow(rows, event.agentId, (r) => ({ ...r, approvals: r.approvals + 1 }));
    case 'approval-result':
      return withRow(rows, event.agentId, (r) => ({ ...r, approvals: Math.max(0, r.approvals - 1) }));
    case 'agent-end':
      return withRow(rows, event.agentId, (r) => ({
        ...r,
        endedAt: event.at,
        status: event.output.status,
        tools: {},
        approvals: 0,
        result: event.output.result,
        tokens: Math.max(r.tokens, totalTokens(event.output.usage)),
      }));
    default:
      return rows;
  }
}

/** The state a row is drawn in. */
export function rowState(row: AgentRow, rows: AgentRows): RowState {
  if (row.endedAt !== undefined) return 'done';
  if (row.approvals > 0) return 'approval';
  const waitingOnChild = Object.values(rows).some(
    (c) => c.parentId === row.agentId && c.endedAt === undefined && !c.background,
  );
  return waitingOnChild ? 'waiting' : 'working';
}

/** Running agents waiting for the person. */
export function waitingForPerson(rows: AgentRows): number {
  return Object.values(rows).filter((r) => r.endedAt === undefined && r.approvals > 0).length;
}

/** Running agents below `agentId`, at any depth. */
export function runningBelow(rows: AgentRows, agentId: string): number {
  return Object.values(rows)
    .filter((r) => r.parentId === agentId && r.endedAt === undefined)
    .reduce((n, r) => n + 1 + runningBelow(rows, r.agentId), 0);
}

/** A background or @mention run, as `/tasks` lists it. */
export interface TaskRow {
  agentId: string;
  agentType: string;
  description: string;
  /** A terminal status, or `running`. */
  status: string;
  background: boolean;
  result?: string;
}

/** A session's background runs and the top-level runs other than its main agent, newest first. */
export function sessionTasks(rows: AgentRows, mainId: string | undefined): TaskRow[] {
  return Object.values(rows)
    .filter((r) => r.background || (r.depth === 0 && r.agentId !== mainId))
    .sort((a, b) => b.startedAt - a.startedAt)
    .map((r) => ({
      agentId: r.agentId,
      agentType: r.agentType,
      description: r.description,
      status: r.status ?? 'running',
      background: r.background,
      ...(r.result !== undefined ? { result: r.result } : {}),
    }));
}
