// The chat's last line: the Ctrl+C hint while a second press would quit, else the agent, the
// permission mode, whether it works, what is queued, and /help.
import { Text } from 'ink';
import type { ChatController } from '../../chat/controller.js';
import type { ChatState } from '../chat-state.js';

/** The status line. */
export function ChatStatus({
  hint,
  controller,
  state,
}: {
  hint: string;
  controller: ChatController;
  state: ChatState;
}) {
  return (
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
  );
}
