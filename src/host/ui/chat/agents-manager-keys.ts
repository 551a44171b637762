// What a key does on each screen of `/agents`: the list moves, opens and starts things; the other
// screens answer their own few keys. Plain functions over the overlay's state and actions.
import type { Key } from 'ink';
import type { LoadedAgent } from '../../../shared/agent-definition.js';
import { agentTemplate, deleteRefusal } from '../../chat/agent-files.js';
import type { AgentActions } from './agent-actions.js';
import type { Screen } from './agents-screens.js';

/** What the key handlers read and change. */
export interface ManagerKeyContext {
  screen: Screen;
  /** The selected agent of the list, if any. */
  selected: LoadedAgent | undefined;
  index: number;
  count: number;
  input: { key(input: string, key: Key): string | undefined; reset(): void };
  actions: AgentActions;
  setScreen: (screen: Screen) => void;
  setIndex: (index: number) => void;
  onClose: () => void;
}

/** Whether `name` is a valid agent name: lowercase words joined by hyphens. */
export function isAgentName(name: string): boolean {
  return /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
}

/** Routes one key to the current screen's handler. */
export function managerKey(ctx: ManagerKeyContext, text: string, key: Key): void {
  const { screen } = ctx;
  switch (screen.kind) {
    case 'ask':
      return askKey(ctx, screen.purpose, text, key);
    case 'review':
      if (key.escape) return ctx.setScreen({ kind: 'list' });
      if (text === 'p' || text === 'u')
        return ctx.actions.save(screen.draft, text === 'p' ? 'project' : 'user');
      if (text === 'e') return ctx.actions.editDraft(screen.draft);
      return;
    case 'delete':
      if (text === 'y') return ctx.actions.remove(screen.agent);
      return ctx.setScreen({ kind: 'list' });
    case 'show':
      if (key.escape || key.return) ctx.setScreen({ kind: 'list' });
      return;
    case 'list':
      return listKey(ctx, text, key);
  }
}

/** A name or a description being typed: Enter goes on to review a template or a model's draft. */
function askKey(ctx: ManagerKeyContext, purpose: 'name' | 'describe', text: string, key: Key): void {
  const done = ctx.input.key(text, key);
  if (key.escape) return ctx.setScreen({ kind: 'list' });
  if (done === undefined) return;
  if (purpose === 'describe') return ctx.actions.draft(done);
  if (!isAgentName(done)) return ctx.actions.setStatus('a name is lowercase words joined by hyphens');
  ctx.setScreen({ kind: 'review', draft: agentTemplate(done, '') });
}

/** The list: arrows move, Enter shows, c/g create, r reloads, e edits, d deletes, Esc closes. */
function listKey(ctx: ManagerKeyContext, text: string, key: Key): void {
  const { selected, actions } = ctx;
  if (key.escape) return ctx.onClose();
  if (key.upArrow) return ctx.setIndex(Math.max(0, ctx.index - 1));
  if (key.downArrow) return ctx.setIndex(Math.min(ctx.count - 1, ctx.index + 1));
  if (key.return && selected) return ctx.setScreen({ kind: 'show', agent: selected });
  if (text === 'c' || text === 'g') {
    ctx.input.reset();
    return ctx.setScreen({ kind: 'ask', purpose: text === 'c' ? 'name' : 'describe' });
  }
  if (text === 'r') return actions.reload();
  if (!selected) return;
  const refusal = text === 'e' || text === 'd' ? deleteRefusal(selected) : undefined;
  if (text === 'e') {
    if (refusal) return actions.setStatus(`${selected.name} has no file of its own to edit: ${refusal}`);
    return actions.editAgent(selected);
  }
  if (text === 'd') {
    if (refusal) return actions.setStatus(refusal);
    return ctx.setScreen({ kind: 'delete', agent: selected });
  }
}
