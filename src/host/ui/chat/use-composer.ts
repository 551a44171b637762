// The composer's state for the chat. Keys can arrive faster than renders: the latest state lives in
// a ref, so each key builds on the one before it, not on the last rendered state.
import { useRef, useState, type MutableRefObject } from 'react';
import { emptyComposer, type ComposerState } from '../composer-model.js';

/** The composer's rendered state, its latest state, and a setter of both. */
export function useComposer(history: readonly string[]): {
  composer: ComposerState;
  composerRef: MutableRefObject<ComposerState>;
  setComposer: (next: ComposerState) => void;
} {
  const composerRef = useRef<ComposerState>(emptyComposer(history));
  const [composer, setComposerState] = useState<ComposerState>(composerRef.current);
  const setComposer = (next: ComposerState) => {
    composerRef.current = next;
    setComposerState(next);
  };
  return { composer, composerRef, setComposer };
}
