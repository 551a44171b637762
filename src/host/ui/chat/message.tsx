// One finished message of the chat, as the scrollback keeps it. Everything in it may come from a
// model or a tool, so all of it is sanitized before Ink sees it.
import { memo } from 'react';
import { Box, Text } from 'ink';
import type { ChatItem } from '../chat-state.js';
import { sanitizeForTerminal, sanitizeLine } from '../terminal-text.js';

/** A scrollback message. */
function MessageView({ item }: { item: ChatItem }) {
  const text = sanitizeForTerminal(item.text);
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Text bold color="blue">
            {'\u276f '}
          </Text>
          <Text bold>{text}</Text>
        </Box>
      );
    case 'assistant':
      return (
        <Box marginTop={1}>
          <Text>{text}</Text>
        </Box>
      );
    case 'tool':
      return (
        <Text dimColor wrap="truncate">
          {`  \u23fa ${sanitizeLine(item.text)}`}
        </Text>
      );
    case 'notice':
      return (
        <Text color="yellow" dimColor wrap="truncate">
          {`  \u00b7 ${sanitizeLine(item.text)}`}
        </Text>
      );
    case 'refused':
      return <Text color="red">{`  \u2717 refused: ${sanitizeLine(item.text)}`}</Text>;
    case 'error':
      return <Text color="red">{`  \u2717 ${text}`}</Text>;
    case 'agent':
    case 'info':
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text bold color={item.kind === 'agent' ? 'magenta' : 'cyan'}>
            {sanitizeLine(item.title ?? '')}
          </Text>
          <Text>{text}</Text>
        </Box>
      );
  }
}

/** Drawn again only when its props change (a key or a batch of events redraws the app). */
export const Message = memo(MessageView);
