// `/agents`: the agents in force with their source and path; show one; create one from a template
// or from a model's draft, reviewed (and checked by the registry's parser) before it is saved to
// the project or the user scope; edit a file in $EDITOR; delete one (built-ins are protected); and
// reload every source. What keys do is agents-manager-keys.ts; the work, agent-actions.ts.
import { Box, Text } from 'ink';
import type { MutableRefObject } from 'react';
import { scopeDir } from '../../chat/agent-files.js';
import type { ChatController } from '../../chat/controller.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import { useAgentActions } from './agent-actions.js';
import { managerKey } from './agents-manager-keys.js';
import { AgentsScreen, type Screen } from './agents-screens.js';
import { useRefState, type KeyHandler } from './keys.js';
import { useLineInput } from './line-input.js';

/** What the manager needs from the app. */
export interface AgentsManagerProps {
  controller: ChatController;
  /** Opens a file in $EDITOR with the terminal handed over; resolves when the editor exits. */
  editFile: (file: string) => Promise<void>;
  onClose: () => void;
  /** Where the app sends this overlay's keys. */
  keys: MutableRefObject<KeyHandler | undefined>;
  width: number;
  height: number;
}

/** The `/agents` overlay. */
export function AgentsManager(props: AgentsManagerProps) {
  const { controller, width } = props;
  const [screen, setScreen, screenRef] = useRefState<Screen>({ kind: 'list' });
  const [index, setIndex, indexRef] = useRefState(0);
  const actions = useAgentActions(controller, props.editFile, setScreen);
  const input = useLineInput();
  const agents = controller.runtime.registry.agents;

  props.keys.current = (text, key) => {
    if (actions.busyRef.current) return;
    actions.setStatus('');
    // Read at the key, not the render: a reload may have changed the list since.
    const list = controller.runtime.registry.agents;
    managerKey(
      {
        screen: screenRef.current,
        selected: list[Math.min(indexRef.current, list.length - 1)],
        index: indexRef.current,
        count: agents.length,
        input,
        actions,
        setScreen,
        setIndex,
        onClose: props.onClose,
      },
      text,
      key,
    );
  };

  const { status } = actions;
  const statusLine = status ? (
    <Text color={status.startsWith('\u2717') ? 'red' : 'green'}>{sanitizeForTerminal(status)}</Text>
  ) : null;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <AgentsScreen
        screen={screen}
        agents={agents}
        index={index}
        input={input.state}
        projectAgents={scopeDir('project', { cwd: controller.runtime.cwd, home: controller.home })}
        width={width}
        height={props.height}
      />
      {actions.busy ? <Text dimColor>{'working\u2026'}</Text> : statusLine}
    </Box>
  );
}
