// The chat's composer as a pure model: a multi-line text with a cursor, a history of sent
// messages, and the `@` agent picker (the word at the cursor starting with `@` lists the agents
// whose name matches, with their descriptions). Keys go in, a new state and maybe a submitted
// message come out; the Ink component only draws it.

/** An agent the picker can offer. */
export interface AgentChoice {
  name: string;
  description: string;
}

/** The composer's state. */
export interface ComposerState {
  text: string;
  /** Cursor position in `text` (UTF-16 index). */
  cursor: number;
  /** Sent messages, oldest first. */
  history: readonly string[];
  /** Position while browsing history (history.length: the draft). */
  browsing: number;
  /** The draft kept while browsing history. */
  draft: string;
  /** The picker's highlighted choice, and whether Esc closed it for the current word. */
  pick: number;
  pickerClosed: boolean;
}

/** The key facts the composer reads (a subset of Ink's Key). */
export interface ComposerKey {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
}

/** What a key did. */
export interface ComposerResult {
  state: ComposerState;
  /** A message to send (already added to the history). */
  submitted?: string;
  /** The key was not the composer's (Esc with nothing to close, ↓ past the newest message). */
  unhandled?: boolean;
}

/** Most messages kept in the history. */
const HISTORY_LIMIT = 500;
/** Longest chunk taken as fast typing rather than a paste (see composerKey). */
const TYPED_CHUNK = 8;
/** Most choices the picker shows. */
export const PICKER_ROWS = 6;

/** An empty composer with `history`. */
export function emptyComposer(history: readonly string[] = []): ComposerState {
  return { text: '', cursor: 0, history, browsing: history.length, draft: '', pick: 0, pickerClosed: false };
}

/** The `@word` the cursor is in, or undefined. */
export function mentionAt(
  state: Pick<ComposerState, 'text' | 'cursor'>,
): { start: number; query: string } | undefined {
  const before = state.text.slice(0, state.cursor);
  const match = /(^|\s)@([a-z0-9-]*)$/i.exec(before);
  if (!match) return undefined;
  return { start: state.cursor - (match[2]?.length ?? 0) - 1, query: (match[2] ?? '').toLowerCase() };
}

/** Every agent matching the current @word: names starting with the query first. */
export function pickerMatches(state: ComposerState, agents: readonly AgentChoice[]): AgentChoice[] {
  const at = mentionAt(state);
  if (!at || state.pickerClosed) return [];
  const starts = agents.filter((a) => a.name.startsWith(at.query));
  const contains = agents.filter((a) => !a.name.startsWith(at.query) && a.name.includes(at.query));
  return [...starts, ...contains];
}

/** The agents the picker shows for the current word (at most PICKER_ROWS). */
export function pickerChoices(state: ComposerState, agents: readonly AgentChoice[]): AgentChoice[] {
  return pickerMatches(state, agents).slice(0, PICKER_ROWS);
}

function edit(state: ComposerState, text: string, cursor: number): ComposerState {
  return {
    ...state,
    text,
    cursor,
    pick: 0,
    pickerClosed: state.pickerClosed && mentionAt({ text, cursor }) !== undefined,
  };
}

function insert(state: ComposerState, chunk: string): ComposerState {
  const text = state.text.slice(0, state.cursor) + chunk + state.text.slice(state.cursor);
  return edit(state, text, state.cursor + chunk.length);
}

/** Start and end of the line the cursor is on. */
function lineBounds(text: string, cursor: number): { start: number; end: number } {
  const start = text.lastIndexOf('\n', cursor - 1) + 1;
  const next = text.indexOf('\n', cursor);
  return { start, end: next === -1 ? text.length : next };
}

function browse(state: ComposerState, to: number): ComposerState {
  const draft = state.browsing === state.history.length ? state.text : state.draft;
  const text = to === state.history.length ? draft : (state.history[to] ?? '');
  return { ...state, text, cursor: text.length, browsing: to, draft, pick: 0 };
}

function submit(state: ComposerState): ComposerResult {
  // A line ending in a backslash continues on the next one.
  if (state.text.slice(0, state.cursor).endsWith('\\') && state.cursor === state.text.length)
    return { state: edit(state, `${state.text.slice(0, -1)}\n`, state.text.length) };
  const message = state.text.trim();
  if (message === '') return { state };
  const history = [...state.history.filter((h) => h !== message), message].slice(-HISTORY_LIMIT);
  return { state: emptyComposer(history), submitted: message };
}

function vertical(state: ComposerState, up: boolean, agents: readonly AgentChoice[]): ComposerResult {
  const choices = pickerChoices(state, agents);
  if (choices.length > 0) {
    const pick = (state.pick + (up ? choices.length - 1 : 1)) % choices.length;
    return { state: { ...state, pick } };
  }
  const { start, end } = lineBounds(state.text, state.cursor);
  const firstLine = start === 0;
  const lastLine = end === state.text.length;
  if (up && !firstLine) {
    const prev = lineBounds(state.text, start - 1);
    return { state: { ...state, cursor: Math.min(prev.start + (state.cursor - start), prev.end) } };
  }
  if (!up && !lastLine) {
    const next = lineBounds(state.text, end + 1);
    return { state: { ...state, cursor: Math.min(next.start + (state.cursor - start), next.end) } };
  }
  if (up) return { state: state.browsing > 0 ? browse(state, state.browsing - 1) : state };
  if (state.browsing < state.history.length) return { state: browse(state, state.browsing + 1) };
  return { state, unhandled: true };
}

function accept(state: ComposerState, choice: AgentChoice): ComposerState {
  const at = mentionAt(state);
  if (!at) return state;
  const text = `${state.text.slice(0, at.start)}@${choice.name} ${state.text.slice(state.cursor)}`;
  return edit(state, text, at.start + choice.name.length + 2);
}

/** Applies one key (Ink's `input` and `key`) with the agents the picker may offer. */
export function composerKey(
  state: ComposerState,
  input: string,
  key: ComposerKey,
  agents: readonly AgentChoice[] = [],
): ComposerResult {
  const choices = pickerChoices(state, agents);
  const chosen = choices[state.pick];
  if (key.tab || (key.return && !key.meta && chosen))
    return { state: chosen ? accept(state, chosen) : state };
  if (key.escape)
    return choices.length > 0 ? { state: { ...state, pickerClosed: true } } : { state, unhandled: true };
  if (key.return && key.meta) return { state: insert(state, '\n') };
  if (key.return) return submit(state);
  if (input === '\n' || (key.ctrl && input === 'j')) return { state: insert(state, '\n') };
  if (key.upArrow || key.downArrow) return vertical(state, key.upArrow === true, agents);
  if (key.leftArrow) return { state: { ...state, cursor: Math.max(0, state.cursor - 1) } };
  if (key.rightArrow) return { state: { ...state, cursor: Math.min(state.text.length, state.cursor + 1) } };
  if (key.home || (key.ctrl && input === 'a'))
    return { state: { ...state, cursor: lineBounds(state.text, state.cursor).start } };
  if (key.end || (key.ctrl && input === 'e'))
    return { state: { ...state, cursor: lineBounds(state.text, state.cursor).end } };
  if (key.ctrl && input === 'u') return { state: edit(state, state.text.slice(state.cursor), 0) };
  // Most terminals send DEL for Backspace, which Ink reports as `delete`: both erase to the left.
  if (key.backspace || key.delete) {
    if (state.cursor === 0) return { state };
    return {
      state: edit(
        state,
        state.text.slice(0, state.cursor - 1) + state.text.slice(state.cursor),
        state.cursor - 1,
      ),
    };
  }
  if (key.ctrl || key.meta || input === '') return { state, unhandled: true };
  // A few keys typed fast can arrive as one chunk ("t\r"): a short chunk whose only line break is
  // its last character is typing followed by Enter. Longer ones are pastes: their breaks stay breaks.
  if (input.length <= TYPED_CHUNK && input.endsWith('\r') && !/[\r\n]/.test(input.slice(0, -1)))
    return submit(insert(state, input.slice(0, -1)));
  return { state: insert(state, input.replace(/\r\n?/g, '\n')) };
}
