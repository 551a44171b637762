// Where each key of the chat goes, in order: Ctrl+C (twice to quit), a cancel to confirm, an open
// overlay, the approval prompt at the head of the queue, the selected row of the agent tree, and
// last the composer. Plain functions over the app's state (read from refs: keys.ts says why).
import type { Key } from 'ink';
import type { MutableRefObject } from 'react';
import type { ChatController } from '../../chat/controller.js';
import type { ApprovalKey } from '../approval-queue.js';
import { composerKey, type AgentChoice, type ComposerState } from '../composer-model.js';
import type { KeyHandler } from './keys.js';
import { treeKeyOutcome } from './tree-selection.js';

/** Milliseconds within which a second Ctrl-C quits. */
export const CTRL_C_WINDOW_MS = 3000;

/** A cancel waiting for its y: the agent, and how many subagents go with it. */
export interface PendingCancel {
  agentId: string;
  children: number;
}

/** What the key routing reads and changes. */
export interface ChatKeyContext {
  controller: ChatController;
  agents: readonly AgentChoice[];
  composer: MutableRefObject<ComposerState>;
  setComposer: (next: ComposerState) => void;
  overlayOpen: boolean;
  overlayKeys: MutableRefObject<KeyHandler | undefined>;
  selected: string | undefined;
  setSelected: (agentId: string | undefined) => void;
  confirm: PendingCancel | undefined;
  setConfirm: (confirm: PendingCancel | undefined) => void;
  /** When Ctrl+C was last pressed (0: not lately). */
  ctrlC: number;
  setCtrlC: (at: number) => void;
  /** The agent ids of the tree's rows as drawn, top to bottom. */
  visibleAgents: () => string[];
  submit: (text: string) => void;
  onHistory: ((history: readonly string[]) => void) | undefined;
  onExit: () => void;
}

/** Routes one key. */
export function chatKey(ctx: ChatKeyContext, input: string, key: Key): void {
  const { controller } = ctx;
  if (key.ctrl && input === 'c') {
    if (ctx.ctrlC > 0 && Date.now() - ctx.ctrlC < CTRL_C_WINDOW_MS) return ctx.onExit();
    ctx.setCtrlC(Date.now());
    return ctx.setComposer({ ...ctx.composer.current, text: '', cursor: 0 });
  }
  const asking = controller.queue.view().head !== undefined;
  // A dialog the person opened (an overlay, a cancel to confirm) keeps the keys while a prompt
  // waits: a "y" meant for it never answers a prompt that appeared meanwhile. Each of its keys
  // starts the prompt's grace again, so the prompt takes keys only once the dialog is closed.
  if (ctx.confirm) {
    if (asking) controller.queue.press('other');
    if (input === 'y') controller.cancelAgent(ctx.confirm.agentId);
    return ctx.setConfirm(undefined);
  }
  if (ctx.overlayOpen) {
    if (asking) controller.queue.press('other');
    return ctx.overlayKeys.current?.(input, key);
  }
  if (asking) {
    // Every key reaches the prompt, so text being typed holds its key grace open.
    const answer: ApprovalKey = key.escape
      ? 'escape'
      : ((['y', 'n', 'a', 'd'] as const).find((k) => k === input.toLowerCase()) ?? 'other');
    controller.queue.press(answer);
    return;
  }
  if (ctx.selected !== undefined && treeKey(ctx, ctx.selected, input, key)) return;
  composerInput(ctx, input, key);
}

/** A key with a tree row selected; false when the key still goes to the composer. */
function treeKey(ctx: ChatKeyContext, selected: string, input: string, key: Key): boolean {
  const outcome = treeKeyOutcome(ctx.visibleAgents(), selected, input, key);
  if (outcome.kind === 'move') {
    ctx.setSelected(outcome.selected);
    return true;
  }
  ctx.setSelected(undefined);
  if (outcome.kind === 'leave') return !outcome.typed;
  const children = ctx.controller.runningChildren(outcome.agentId);
  if (children > 0) ctx.setConfirm({ agentId: outcome.agentId, children });
  else ctx.controller.cancelAgent(outcome.agentId);
  return true;
}

/** A key for the composer: text, history, the @agent picker, Enter submits, Esc interrupts. */
function composerInput(ctx: ChatKeyContext, input: string, key: Key): void {
  const result = composerKey(ctx.composer.current, input, key, ctx.agents);
  ctx.setComposer(result.state);
  if (result.submitted !== undefined) {
    ctx.onHistory?.(result.state.history);
    ctx.submit(result.submitted);
  }
  if (result.unhandled && key.escape) ctx.controller.interrupt();
  if (result.unhandled && key.downArrow) ctx.setSelected(ctx.visibleAgents()[0]);
}
