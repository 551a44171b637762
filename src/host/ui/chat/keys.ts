// Key handling that never acts on stale state. Ink re-subscribes a useInput handler in a passive
// effect after each render, and keys can arrive before that effect runs (a fast typist, a paste):
// they would reach the previous screen's handler. So the app subscribes once, with a stable
// function that calls the latest handler, and state that routes keys lives in refs updated as it is
// set, not when it is rendered.
import { useInput, type Key } from 'ink';
import { useCallback, useRef, useState, type MutableRefObject } from 'react';

/** A key handler: Ink's input and key. */
export type KeyHandler = (input: string, key: Key) => void;

/** Subscribes `handler` once; each key goes to the handler of the latest render. */
export function useKeys(handler: KeyHandler): void {
  const latest = useRef(handler);
  latest.current = handler;
  const stable = useCallback<KeyHandler>((input, key) => latest.current(input, key), []);
  useInput(stable);
}

/** State whose latest value is readable at once (by key handlers) through the returned ref. */
export function useRefState<T>(initial: T): [T, (next: T) => void, MutableRefObject<T>] {
  const ref = useRef(initial);
  const [value, setValue] = useState(initial);
  const set = useCallback((next: T) => {
    ref.current = next;
    setValue(next);
  }, []);
  return [value, set, ref];
}
