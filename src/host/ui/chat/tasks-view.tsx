// `/tasks`: background and @mention runs of the session, with their status; Enter shows a run's
// output, s stops a running one.
import { Box, Text } from 'ink';
import { useState, type MutableRefObject } from 'react';
import type { ChatController } from '../../chat/controller.js';
import { clipLine, sanitizeForTerminal } from '../terminal-text.js';
import { useRefState, type KeyHandler } from './keys.js';

/** The `/tasks` overlay. */
export function TasksView(props: {
  controller: ChatController;
  onClose: () => void;
  /** Where the app sends this overlay's keys. */
  keys: MutableRefObject<KeyHandler | undefined>;
  width: number;
  height: number;
}) {
  const { controller, width } = props;
  const [index, setIndex, indexRef] = useRefState(0);
  const [open, setOpen, openRef] = useRefState<string | undefined>(undefined);
  const [status, setStatus] = useState('');
  const tasks = controller.tasks();
  const shown = open === undefined ? undefined : tasks.find((t) => t.agentId === open);

  props.keys.current = (text, key) => {
    setStatus('');
    if (openRef.current !== undefined) {
      if (key.escape || key.return) setOpen(undefined);
      return;
    }
    const tasks = controller.tasks();
    const selected = tasks[Math.min(indexRef.current, tasks.length - 1)];
    if (key.escape) return props.onClose();
    if (key.upArrow) return setIndex(Math.max(0, indexRef.current - 1));
    if (key.downArrow) return setIndex(Math.min(tasks.length - 1, indexRef.current + 1));
    if (key.return && selected) return setOpen(selected.agentId);
    if (text === 's' && selected) {
      if (selected.status !== 'running')
        return setStatus(`${selected.agentId} has ended (${selected.status})`);
      controller.cancelAgent(selected.agentId);
      return setStatus(`stopping ${selected.agentId}`);
    }
  };

  if (shown) {
    const output = shown.result ?? '(still running: its output comes when it ends)';
    return (
      <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
        <Text bold color="magenta">
          {clipLine(`/tasks \u203a ${shown.agentId} (${shown.status})`, width - 4)}
        </Text>
        <Text>
          {sanitizeForTerminal(
            output
              .split('\n')
              .slice(0, Math.max(3, props.height - 8))
              .join('\n'),
          )}
        </Text>
        <Text dimColor>Enter or Esc: back</Text>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold color="magenta">{`/tasks (${tasks.length})`}</Text>
      {tasks.length === 0 ? <Text dimColor>no background or @mention runs in this session</Text> : null}
      {tasks.slice(0, Math.max(3, props.height - 8)).map((t, i) => (
        <Text key={t.agentId} wrap="truncate" {...(i === index ? { color: 'cyan', bold: true } : {})}>
          {clipLine(
            `${i === index ? '\u276f' : ' '} ${t.status.padEnd(10)} ${t.agentId} ${t.background ? '(background) ' : ''}\u00b7 ${t.description}`,
            width - 4,
          )}
        </Text>
      ))}
      {status ? <Text color="yellow">{sanitizeForTerminal(status)}</Text> : null}
      <Text dimColor>Enter: output s: stop Esc: close</Text>
    </Box>
  );
}
