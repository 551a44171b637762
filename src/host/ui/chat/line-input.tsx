// A one-line text field for the overlays (a new agent's name, a one-line description), built on
// the composer's model without its history or picker.
import { Text } from 'ink';
import { useRef, useState } from 'react';
import { composerKey, emptyComposer, type ComposerKey, type ComposerState } from '../composer-model.js';
import { clipLine } from '../terminal-text.js';

/** The field's state and its key handler; `key` returns the text when Enter submits it. */
export function useLineInput(): {
  state: ComposerState;
  key(input: string, key: ComposerKey): string | undefined;
  reset(): void;
} {
  // The latest state in a ref: keys can arrive faster than renders.
  const ref = useRef(emptyComposer());
  const [state, setState] = useState(ref.current);
  const set = (next: ComposerState) => {
    ref.current = next;
    setState(next);
  };
  return {
    state,
    key(input, key) {
      // One line only: a newline key submits like Enter.
      const result = composerKey(ref.current, input.replace(/\n/g, ''), { ...key, meta: false });
      set(result.state);
      return result.submitted;
    },
    reset: () => set(emptyComposer()),
  };
}

/** Draws the field with its cursor. */
export function LineInput({ state, width }: { state: ComposerState; width: number }) {
  const line = state.text.replace(/\n/g, ' ');
  return (
    <Text>
      {'\u276f '}
      {clipLine(line.slice(0, state.cursor), width)}
      <Text inverse>{line.slice(state.cursor, state.cursor + 1) || ' '}</Text>
      {clipLine(line.slice(state.cursor + 1), width)}
    </Text>
  );
}
