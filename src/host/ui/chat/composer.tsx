// The composer: the text being written (several lines, with a cursor) and, while the word at the
// cursor starts with @, the agents it may name with their descriptions. Its keys are handled by
// the pure composer model; this only draws.
import { memo } from 'react';
import { Box, Text } from 'ink';
import { PICKER_ROWS, pickerMatches, type AgentChoice, type ComposerState } from '../composer-model.js';
import { clipLine, sanitizeForTerminal } from '../terminal-text.js';

/** The composer and its @ picker. */
function ComposerView(props: {
  state: ComposerState;
  agents: readonly AgentChoice[];
  width: number;
  active: boolean;
  placeholder: string;
}) {
  const { state, width } = props;
  const matches = pickerMatches(state, props.agents);
  const choices = matches.slice(0, PICKER_ROWS);
  const before = sanitizeForTerminal(state.text.slice(0, state.cursor));
  const at = state.text.slice(state.cursor, state.cursor + 1);
  const after = sanitizeForTerminal(state.text.slice(state.cursor + 1));
  const cursor = at === '' || at === '\n' ? ' ' : sanitizeForTerminal(at);
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={props.active ? 'blue' : 'gray'} paddingX={1}>
        <Text color="blue">{'\u276f '}</Text>
        {state.text === '' && !props.active ? (
          <Text dimColor>{props.placeholder}</Text>
        ) : (
          <Text>
            {before}
            {props.active ? <Text inverse>{cursor}</Text> : cursor === ' ' ? '' : cursor}
            {at === '\n' ? '\n' : ''}
            {after}
            {state.text === '' && props.active ? <Text dimColor>{` ${props.placeholder}`}</Text> : null}
          </Text>
        )}
      </Box>
      {choices.map((choice, i) => (
        <Text
          key={choice.name}
          wrap="truncate"
          {...(i === state.pick ? { color: 'cyan', bold: true } : { dimColor: true })}
        >
          {`  ${i === state.pick ? '\u276f' : ' '} @${clipLine(choice.name, 30)}  ${clipLine(choice.description, Math.max(10, width - choice.name.length - 10))}`}
        </Text>
      ))}
      {matches.length > choices.length ? (
        <Text dimColor>{`    \u2193 ${matches.length - choices.length} more: type to filter`}</Text>
      ) : null}
    </Box>
  );
}

/** Drawn again only when its props change (a key or a batch of events redraws the app). */
export const Composer = memo(ComposerView);
