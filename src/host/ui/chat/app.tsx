// The chat: finished messages in <Static> (printed once, so the scrollback survives), the main
// agent's streaming text, the live agent tree, the approval prompt for the head of the queue, and
// the composer or an overlay (/agents, /tasks). One input handler routes each key: an approval
// first, then an overlay, then the tree selection, then the composer.
import { Box, Static, Text, useStdout } from 'ink';
import { useMemo, useRef, useSyncExternalStore } from 'react';
import type { ChatController } from '../../chat/controller.js';
import type { ChatState } from '../chat-state.js';
import type { AgentChoice, ComposerState } from '../composer-model.js';
import { treeLines } from '../tree-lines.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import { AgentTree } from './agent-tree.js';
import { AgentsManager, type AgentsManagerProps } from './agents-manager.js';
import { ApprovalPrompt } from './approval-prompt.js';
import { chatKey, CTRL_C_WINDOW_MS, type PendingCancel } from './chat-keys.js';
import { ChatStatus } from './chat-status.js';
import { Composer } from './composer.js';
import { Message } from './message.js';
import { TasksView } from './tasks-view.js';
import { useKeys, useRefState, type KeyHandler } from './keys.js';
import { useApprovalView } from './use-approval-view.js';
import { useComposer } from './use-composer.js';
import { useTickingNow } from './use-ticking-now.js';

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

const TREE_ROWS = 6;

/** The chat app. */
export function ChatApp(props: ChatAppProps) {
  const { controller } = props;
  const state = useSyncExternalStore(controller.store.subscribe, controller.store.getState);
  const approval = useApprovalView(controller.queue);
  const { stdout } = useStdout();
  const width = Math.max(40, stdout.columns ?? 80);
  const height = Math.max(12, stdout.rows ?? 24);
  const { composer, composerRef, setComposer } = useComposer(props.history ?? []);
  // What routes keys is read from refs (see keys.ts): a key never goes to a screen already left.
  const [overlay, setOverlay, overlayRef] = useRefState<'agents' | 'tasks' | undefined>(undefined);
  const overlayKeys = useRef<KeyHandler | undefined>(undefined);
  const [selected, setSelected, selectedRef] = useRefState<string | undefined>(undefined);
  const [confirm, setConfirm, confirmRef] = useRefState<PendingCancel | undefined>(undefined);
  const [ctrlC, setCtrlC, ctrlCRef] = useRefState(0);
  // Elapsed times and fading rows move while agents run.
  const now = useTickingNow((at) =>
    Object.values(state.rows).some((r) => r.endedAt === undefined || at - r.endedAt < 5000),
  );
  // The same list until the agents are reloaded, so the composer is not drawn again for nothing.
  const registry = controller.runtime.registry;
  const agents = useMemo(() => controller.agentChoices(), [controller, registry]);

  useKeys((input, key) =>
    chatKey(
      {
        controller,
        agents,
        composer: composerRef,
        setComposer,
        overlayOpen: overlayRef.current !== undefined,
        overlayKeys,
        selected: selectedRef.current,
        setSelected,
        confirm: confirmRef.current,
        setConfirm,
        ctrlC: ctrlCRef.current,
        setCtrlC,
        visibleAgents: () => visibleAgentIds(state.rows, width),
        submit: (text) => submitText(controller, text, setOverlay, props.onExit),
        onHistory: props.onHistory,
        onExit: props.onExit,
      },
      input,
      key,
    ),
  );

  const items = state.items.slice(props.printed ?? 0);
  const overlayProps = { controller, onClose: () => setOverlay(undefined), keys: overlayKeys, width, height };
  return (
    <>
      <Static items={[...items]}>{(item) => <Message key={item.id} item={item} />}</Static>
      <Box flexDirection="column">
        <LiveText text={state.live} room={Math.max(3, height - 16 - (approval.head ? 12 : 0))} />
        <AgentTree
          rows={state.rows}
          now={now}
          width={width}
          maxRows={TREE_ROWS}
          {...(selected !== undefined ? { selected } : {})}
        />
        {confirm ? <ConfirmCancel confirm={confirm} /> : null}
        <ApprovalPrompt view={approval} width={width} maxBody={Math.max(3, height - 18)} />
        {approval.head && (overlay || confirm) ? (
          <Text color="yellow">{`the prompt takes keys once ${overlay ? `/${overlay} is closed (Esc)` : 'the question above is answered'}`}</Text>
        ) : null}
        <ChatInput
          overlay={overlay}
          overlayProps={overlayProps}
          editFile={props.editFile}
          composer={composer}
          agents={agents}
          active={!approval.head && !confirm && selected === undefined}
          running={state.running}
        />
        <ChatStatus
          hint={ctrlC > 0 && Date.now() - ctrlC < CTRL_C_WINDOW_MS ? 'press Ctrl+C again to quit' : ''}
          controller={controller}
          state={state}
        />
      </Box>
    </>
  );
}

/** The agent ids of the tree's rows as drawn, top to bottom. */
function visibleAgentIds(rows: ChatState['rows'], width: number): string[] {
  return treeLines(rows, { now: Date.now(), width, maxRows: TREE_ROWS }).flatMap((l) =>
    l.agentId !== undefined ? [l.agentId] : [],
  );
}

/** Sends what the composer submitted; /agents and /tasks open their overlay, /exit leaves. */
function submitText(
  controller: ChatController,
  text: string,
  openOverlay: (overlay: 'agents' | 'tasks') => void,
  exit: () => void,
): void {
  const submitted = controller.submit(text);
  if (submitted.kind !== 'slash') return;
  if (submitted.command === 'agents' || submitted.command === 'tasks') openOverlay(submitted.command);
  if (submitted.command === 'exit') exit();
}

/** The main agent's streaming text: its last `room` lines. */
function LiveText({ text, room }: { text: string; room: number }) {
  if (text === '') return null;
  return (
    <Box marginTop={1}>
      <Text>{sanitizeForTerminal(text.split('\n').slice(-room).join('\n'))}</Text>
    </Box>
  );
}

/** The open overlay (/agents, /tasks), or the composer. */
function ChatInput(props: {
  overlay: 'agents' | 'tasks' | undefined;
  overlayProps: Omit<AgentsManagerProps, 'editFile'>;
  editFile: (file: string) => Promise<void>;
  composer: ComposerState;
  agents: readonly AgentChoice[];
  active: boolean;
  running: boolean;
}) {
  if (props.overlay === 'agents') return <AgentsManager {...props.overlayProps} editFile={props.editFile} />;
  if (props.overlay === 'tasks') return <TasksView {...props.overlayProps} />;
  return (
    <Composer
      state={props.composer}
      agents={props.agents}
      width={props.overlayProps.width}
      active={props.active}
      placeholder={props.running ? 'the agent is working; Esc interrupts' : 'message, @agent task, or /help'}
    />
  );
}

/** A cancel that takes running subagents with it, waiting for its y. */
function ConfirmCancel({ confirm }: { confirm: PendingCancel }) {
  return (
    <Text color="yellow">{`${confirm.agentId} has ${confirm.children} running subagent(s); cancel it and them? y: yes, any other key: no`}</Text>
  );
}
