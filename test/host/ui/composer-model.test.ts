// The composer's model without Ink: editing, lines, history, the @ picker, typing versus pasting.
import { describe, expect, it } from 'vitest';
import {
  composerKey,
  emptyComposer,
  mentionAt,
  pickerChoices,
  type ComposerKey,
  type ComposerState,
} from '../../../src/host/ui/composer-model.js';

const agents = [
  { name: 'explore', description: 'finds code' },
  { name: 'code-reviewer', description: 'reviews' },
  { name: 'plan', description: 'plans' },
];

function keys(state: ComposerState, ...steps: (string | ComposerKey)[]) {
  let submitted: string | undefined;
  for (const step of steps) {
    const r =
      typeof step === 'string' ? composerKey(state, step, {}, agents) : composerKey(state, '', step, agents);
    state = r.state;
    submitted = r.submitted ?? submitted;
  }
  return { state, submitted };
}

describe('composer model', () => {
  it('edits with a cursor, Backspace (sent as DEL) and Ctrl+U', () => {
    const { state } = keys(
      emptyComposer(),
      'h',
      'e',
      'l',
      'o',
      { leftArrow: true },
      'l',
      { rightArrow: true },
      '!',
      { delete: true },
    );
    expect(state.text).toBe('hello');
    expect(keys(state, { leftArrow: true }, { ctrl: true } as ComposerKey).state.text).toBe('hello');
    expect(composerKey(state, 'u', { ctrl: true }).state.text).toBe('');
  });

  it('sends on Enter and keeps the message in the history; Up and Down walk it and restore the draft', () => {
    const sent = keys(emptyComposer(), 'one', { return: true });
    expect(sent.submitted).toBe('one');
    let state = sent.state;
    ({ state } = keys(state, 'two', { return: true }, 'draft'));
    expect(state.history).toEqual(['one', 'two']);
    ({ state } = keys(state, { upArrow: true }));
    expect(state.text).toBe('two');
    ({ state } = keys(state, { upArrow: true }));
    expect(state.text).toBe('one');
    ({ state } = keys(state, { downArrow: true }, { downArrow: true }));
    expect(state.text).toBe('draft');
    expect(composerKey(state, '', { downArrow: true }).unhandled).toBe(true);
    expect(composerKey(emptyComposer(), '', { return: true }).submitted).toBeUndefined();
  });

  it('makes new lines with Alt+Enter, Ctrl+J and a trailing backslash, and moves between them', () => {
    const { state } = keys(
      emptyComposer(),
      'ab',
      { return: true, meta: true },
      'cd',
      '\n',
      'ef\\',
      { return: true },
      'g',
    );
    expect(state.text).toBe('ab\ncd\nef\ng');
    const up = keys(state, { upArrow: true }).state;
    expect(up.text.slice(0, up.cursor)).toBe('ab\ncd\ne');
  });

  it('tells a few fast keys ending in Enter from a multi-line paste', () => {
    expect(composerKey(emptyComposer(), 't\r', {}).submitted).toBe('t');
    const paste = composerKey(emptyComposer(), 'line one\r\nline two\rline three', {});
    expect(paste.submitted).toBeUndefined();
    expect(paste.state.text).toBe('line one\nline two\nline three');
  });

  it('offers agents for the @word at the cursor, filtered, and Tab or Enter takes the highlighted one', () => {
    let { state } = keys(emptyComposer(), 'ask @');
    expect(mentionAt(state)).toEqual({ start: 4, query: '' });
    expect(pickerChoices(state, agents).map((a) => a.name)).toEqual(['explore', 'code-reviewer', 'plan']);
    ({ state } = keys(state, 'e'));
    expect(pickerChoices(state, agents).map((a) => a.name)).toEqual(['explore', 'code-reviewer']);
    ({ state } = keys(state, { downArrow: true }, { tab: true }));
    expect(state.text).toBe('ask @code-reviewer ');
    expect(pickerChoices(state, agents)).toEqual([]);
    ({ state } = keys(emptyComposer(), '@pl'));
    const r = composerKey(state, '', { return: true }, agents);
    expect(r.submitted).toBeUndefined();
    expect(r.state.text).toBe('@plan ');
    ({ state } = keys(emptyComposer(), 'mail@ex'));
    expect(mentionAt(state)).toBeUndefined();
    ({ state } = keys(emptyComposer(), '@ex', { escape: true }));
    expect(pickerChoices(state, agents)).toEqual([]);
    expect(composerKey(state, 'p', {}, agents).state.text).toBe('@exp');
  });
});
