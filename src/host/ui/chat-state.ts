// The chat as state: the finished messages (printed once, into the scrollback), the main agent's
// streaming text, the live agent tree and the turn in progress, folded by one pure reducer from the
// runs' events and the session's own actions. The store batches actions; Ink only draws the result.
import type { AgentEvent } from '../../shared/events.js';
import type { TaskOutput } from '../../shared/task.js';
import { refusalText } from '../refusal-text.js';
import { isRefusal, reduceRows, toolArgument, type AgentRows } from './agent-rows.js';

/** What a finished message is. */
type ItemKind = 'user' | 'assistant' | 'tool' | 'agent' | 'notice' | 'refused' | 'error' | 'info';

/** A finished message: printed once, never changed. Text is raw; it is sanitized when drawn. */
export interface ChatItem {
  id: number;
  kind: ItemKind;
  text: string;
  /** A heading (the agent of an @mention result, the command of an info block). */
  title?: string;
}

/** The whole chat. */
export interface ChatState {
  items: readonly ChatItem[];
  nextId: number;
  /** The main agent's text of the turn in progress. */
  live: string;
  rows: AgentRows;
  /** The main agent's id (stable across turns: each turn resumes it). */
  mainId?: string;
  /** Whether a main turn is running. */
  running: boolean;
  /** Messages typed while a turn runs; sent in order when it ends. */
  queued: readonly string[];
  /** Tool calls of the main agent in progress: id -> its one-line label. */
  mainTools: Readonly<Record<string, string>>;
  /** Approval requests waiting: id -> what they ask, for the line their answer leaves. */
  asks: Readonly<Record<string, string>>;
  /** Runs the session starts for itself (drafting an agent): their end adds nothing to the chat. */
  quiet: readonly string[];
}

/** Everything that changes the chat. */
export type ChatAction =
  | { type: 'event'; event: AgentEvent }
  | { type: 'item'; kind: ItemKind; text: string; title?: string }
  | { type: 'turn-start'; prompt: string }
  | { type: 'main'; agentId: string }
  /** The turn ended (`output` is absent when it could not start). */
  | { type: 'turn-end'; output?: TaskOutput }
  | { type: 'quiet'; agentId: string }
  | { type: 'queue'; prompt: string }
  | { type: 'dequeue' };

/** The chat before anything happened. */
export function initialChat(items: readonly Omit<ChatItem, 'id'>[] = []): ChatState {
  return {
    items: items.map((item, id) => ({ ...item, id })),
    nextId: items.length,
    live: '',
    rows: {},
    running: false,
    queued: [],
    mainTools: {},
    asks: {},
    quiet: [],
  };
}

function push(state: ChatState, kind: ItemKind, text: string, title?: string): ChatState {
  const item: ChatItem = { id: state.nextId, kind, text, ...(title !== undefined ? { title } : {}) };
  return { ...state, items: [...state.items, item], nextId: state.nextId + 1 };
}

/** Moves the streamed text into the scrollback. */
function flushLive(state: ChatState): ChatState {
  if (state.live.trim() === '') return state.live === '' ? state : { ...state, live: '' };
  return { ...push(state, 'assistant', state.live.trimEnd()), live: '' };
}

/** The one line the scrollback keeps of a main-agent tool call and how it ended. */
function toolLine(label: string, event: Extract<AgentEvent, { type: 'tool-result' }>): string {
  const lines = event.content.split('\n');
  // A subagent's report starts with its id; its status says more.
  const status = event.name === 'Task' ? lines.find((l) => l.startsWith('status: ')) : undefined;
  const first = status ?? lines.find((l) => l.trim() !== '') ?? '';
  // Why, and the rule that would allow it, is on the line the refusal itself left just above.
  if (isRefusal(event)) return `${label} \u2192 refused`;
  if (event.isError) return `${label} \u2192 error: ${first}`;
  return `${label} \u2192 ${first.length > 0 ? first : 'done'}`;
}

function mainEvent(state: ChatState, event: AgentEvent): ChatState {
  switch (event.type) {
    case 'text-delta':
      return { ...state, live: state.live + event.text };
    case 'tool-call': {
      const label = `${event.name}(${toolArgument(event.input)})`;
      return { ...flushLive(state), mainTools: { ...state.mainTools, [event.toolUseId]: label } };
    }
    case 'tool-result': {
      const { [event.toolUseId]: label = event.name, ...rest } = state.mainTools;
      return push({ ...state, mainTools: rest }, 'tool', toolLine(label, event));
    }
    case 'turn-end':
    case 'agent-end':
      return flushLive(state);
    default:
      return state;
  }
}

/**
 * Items an event adds whoever sent it: notices, calls the host refused, answered approvals, an
 * @mention run's result.
 */
function sideItems(state: ChatState, event: AgentEvent): ChatState {
  if (event.type === 'notice' && !state.items.some((i) => i.kind === 'notice' && i.text === event.message))
    return push(state, 'notice', event.message);
  // The same words as the CLI's progress lines. A person's own denial is told by its approval line.
  if (event.type === 'effect-refused' && event.code !== 'approval_denied')
    return push(state, 'refused', `${event.agentId} ${event.summary} \u2014 ${refusalText(event)}`);
  if (event.type === 'approval-request')
    return { ...state, asks: { ...state.asks, [event.requestId]: event.summary } };
  if (event.type === 'approval-result') {
    const { [event.requestId]: summary = event.requestId, ...asks } = state.asks;
    const next = { ...state, asks };
    if (event.decidedBy !== 'user' && event.decidedBy !== 'session') return next;
    const who = event.decidedBy === 'user' ? 'you' : 'a rule you allowed this session';
    return push(
      next,
      'notice',
      `${event.decision === 'allow' ? 'allowed' : 'denied'} by ${who}: ${event.agentId} ${summary}`,
    );
  }
  if (
    event.type === 'agent-end' &&
    event.depth === 0 &&
    event.agentId !== state.mainId &&
    !state.quiet.includes(event.agentId)
  ) {
    const o = event.output;
    const body = o.result.trim() === '' ? `(${o.status}, no text)` : o.result.trim();
    return push(
      state,
      'agent',
      o.status === 'completed' ? body : `${body}\n(${o.status}${o.error ? `: ${o.error.message}` : ''})`,
      `@${o.agentType}`,
    );
  }
  return state;
}

/** Folds one action into the chat. */
export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'event': {
      const e = action.event;
      const rows = reduceRows(state.rows, e);
      let next = rows === state.rows ? state : { ...state, rows };
      if (e.agentId === state.mainId && e.depth === 0) next = mainEvent(next, e);
      return sideItems(next, e);
    }
    case 'item':
      return push(state, action.kind, action.text, action.title);
    case 'turn-start':
      return { ...push(state, 'user', action.prompt), running: true, live: '', mainTools: {} };
    case 'main':
      return { ...state, mainId: action.agentId };
    case 'turn-end': {
      const o = action.output;
      let next = { ...flushLive(state), running: false, mainTools: {} };
      if (o === undefined) return next;
      if (o.status === 'cancelled') next = push(next, 'notice', 'interrupted');
      else if (o.status !== 'completed')
        next = push(next, 'error', `the turn ended ${o.status}${o.error ? `: ${o.error.message}` : ''}`);
      return next;
    }
    case 'quiet':
      return { ...state, quiet: [...state.quiet, action.agentId] };
    case 'queue':
      return { ...state, queued: [...state.queued, action.prompt] };
    case 'dequeue':
      return { ...state, queued: state.queued.slice(1) };
  }
}
