// The chat: finished messages in <Static> (printed once, so the scrollback survives), the main
// agent's streaming text, the live agent tree, the approval prompt for the head of the queue, and
// the composer or an overlay (/agents, /tasks). One input handler routes each key: an approval
// first, then an overlay, then the tree selection, then the composer.
import { Box, Static, Text, useStdout } from 'ink';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { ChatController } from '../../chat/controller.js';
import type { ApprovalKey } from '../approval-queue.js';
import { treeLines } from '../tree-lines.js';
import { composerKey, emptyComposer, type ComposerState } from '../composer-model.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import { AgentTree } from './agent-tree.js';
import { AgentsManager } from './agents-manager.js';
import { ApprovalPrompt } from './approval-prompt.js';
import { Composer } from './composer.js';
import { Message } from './message.js';
import { TasksView } from './tasks-view.js';
import { useKeys, useRefState, type KeyHandler } from './keys.js';
import { useApprovalView } from './use-approval-view.js';

/** What the app is given. */
export interface ChatAppProps {
  controller: ChatController;
  /** Hands the terminal to $EDITOR for `file`; resolves when the editor exits. */
  editFile: (file: string) => Promise<void>;
  /** Leaves the chat. */
  onExit: () => void;
  /** Items already printed by an earlier mount (after an editor), not printed again. */
  printed?: number;
  /** The composer's history, kept across mounts. */
  history?: readonly string[];
  onHistory?: (history: readonly string[]) => void;
}

/** Milliseconds within which a second Ctrl-C quits. */
const CTRL_C_WINDOW_MS = 3000;
const TREE_ROWS = 6;

/** The chat app. */
export function ChatApp(props: ChatAppProps) {
  const { controller } = props;
  const state = useSyncExternalStore(controller.store.subscribe, controller.store.getState);
  const approval = useApprovalView(controller.queue);
  const { stdout } = useStdout();
  const width = Math.max(40, stdout.columns ?? 80);
  const height = Math.max(12, stdout.rows ?? 24);
  // Keys can arrive faster than renders: the composer's latest state lives in a ref, so each key
  // builds on the one before it, not on the last rendered state.
  const composerRef = useRef<ComposerState>(emptyComposer(props.history ?? []));
  const [composer, setComposerState] = useState<ComposerState>(composerRef.current);
  const setComposer = (next: ComposerState) => {
    composerRef.current = next;
    setComposerState(next);
  };
  // What routes keys is read from refs (see keys.ts): a key never goes to a screen already left.
  const [overlay, setOverlay, overlayRef] = useRefState<'agents' | 'tasks' | undefined>(undefined);
  const overlayKeys = useRef<KeyHandler | undefined>(undefined);
  const [selected, setSelected, selectedRef] = useRefState<string | undefined>(undefined);
  const [confirm, setConfirm, confirmRef] = useRefState<{ agentId: string; children: number } | undefined>(
    undefined,
  );
  const [ctrlC, setCtrlC, ctrlCRef] = useRefState(0);
  const [now, setNow] = useState(Date.now());
  // The same list until the agents are reloaded, so the composer is not drawn again for nothing.
  const registry = controller.runtime.registry;
  const agents = useMemo(() => controller.agentChoices(), [controller, registry]);

  // Elapsed times and fading rows move while agents run.
  const busy = Object.values(state.rows).some((r) => r.endedAt === undefined || now - r.endedAt < 5000);
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [busy]);

  const visibleAgents = () =>
    treeLines(state.rows, { now: Date.now(), width, maxRows: TREE_ROWS }).flatMap((l) =>
      l.agentId !== undefined ? [l.agentId] : [],
    );

  const submit = (text: string) => {
    const input = controller.submit(text);
    if (input.kind !== 'slash') return;
    if (input.command === 'agents' || input.command === 'tasks') setOverlay(input.command);
    if (input.command === 'exit') props.onExit();
  };

  const treeKey = (
    input: string,
    key: { upArrow: boolean; downArrow: boolean; escape: boolean },
  ): boolean => {
    const selected = selectedRef.current;
    if (selected === undefined) return false;
    const ids = visibleAgents();
    const at = ids.indexOf(selected);
    if (key.upArrow) setSelected(at <= 0 ? undefined : ids[at - 1]);
    else if (key.downArrow) setSelected(ids[Math.min(ids.length - 1, at + 1)] ?? selected);
    else if (key.escape) {
      const children = controller.runningChildren(selected);
      if (children > 0) setConfirm({ agentId: selected, children });
      else controller.cancelAgent(selected);
      setSelected(undefined);
    } else {
      setSelected(undefined);
      return input === '';
    }
    return true;
  };

  useKeys((input, key) => {
    if (key.ctrl && input === 'c') {
      const first = ctrlCRef.current;
      if (first > 0 && Date.now() - first < CTRL_C_WINDOW_MS) return props.onExit();
      setCtrlC(Date.now());
      setComposer({ ...composerRef.current, text: '', cursor: 0 });
      return;
    }
    if (controller.queue.view().head) {
      const answer: ApprovalKey | undefined = key.escape
        ? 'escape'
        : (['y', 'n', 'a', 'd'] as const).find((k) => k === input.toLowerCase());
      if (answer) controller.queue.press(answer);
      return;
    }
    if (overlayRef.current) return overlayKeys.current?.(input, key);
    const confirm = confirmRef.current;
    if (confirm) {
      if (input === 'y') controller.cancelAgent(confirm.agentId);
      setConfirm(undefined);
      return;
    }
    if (treeKey(input, key)) return;
    const result = composerKey(composerRef.current, input, key, agents);
    setComposer(result.state);
    if (result.submitted !== undefined) {
      props.onHistory?.(result.state.history);
      submit(result.submitted);
    }
    if (result.unhandled && key.escape) controller.interrupt();
    if (result.unhandled && key.downArrow) setSelected(visibleAgents()[0]);
  });

  const items = state.items.slice(props.printed ?? 0);
  const liveLines = state.live.split('\n');
  const liveRoom = Math.max(3, height - 16 - (approval.head ? 12 : 0));
  const hint = ctrlC > 0 && Date.now() - ctrlC < CTRL_C_WINDOW_MS ? 'press Ctrl+C again to quit' : '';
  return (
    <>
      <Static items={[...items]}>{(item) => <Message key={item.id} item={item} />}</Static>
      <Box flexDirection="column">
        {state.live !== '' ? (
          <Box marginTop={1}>
            <Text>{sanitizeForTerminal(liveLines.slice(-liveRoom).join('\n'))}</Text>
          </Box>
        ) : null}
        <AgentTree
          rows={state.rows}
          now={now}
          width={width}
          maxRows={TREE_ROWS}
          {...(selected !== undefined ? { selected } : {})}
        />
        {confirm ? (
          <Text color="yellow">{`${confirm.agentId} has ${confirm.children} running subagent(s); cancel it and them? y: yes, any other key: no`}</Text>
        ) : null}
        <ApprovalPrompt view={approval} width={width} maxBody={Math.max(3, height - 18)} />
        {overlay === 'agents' ? (
          <AgentsManager
            controller={controller}
            editFile={props.editFile}
            onClose={() => setOverlay(undefined)}
            keys={overlayKeys}
            width={width}
            height={height}
          />
        ) : overlay === 'tasks' ? (
          <TasksView
            controller={controller}
            onClose={() => setOverlay(undefined)}
            keys={overlayKeys}
            width={width}
            height={height}
          />
        ) : (
          <Composer
            state={composer}
            agents={agents}
            width={width}
            active={!approval.head && !confirm && selected === undefined}
            placeholder={
              state.running ? 'the agent is working; Esc interrupts' : 'message, @agent task, or /help'
            }
          />
        )}
        <Text dimColor wrap="truncate">
          {hint ||
            [
              `${controller.agent} \u00b7 ${controller.runtime.config.permissions.defaultMode}`,
              state.running ? 'working (Esc interrupts)' : 'idle',
              state.queued.length > 0 ? `${state.queued.length} queued` : '',
              '/help',
            ]
              .filter(Boolean)
              .join(' \u00b7 ')}
        </Text>
      </Box>
    </>
  );
}
