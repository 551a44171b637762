// Keys on a selected row of the agent tree: arrows move within the rows shown (up past the first
// goes back to the composer), Esc cancels, any other key leaves the tree (a printable one is typed).
import { describe, expect, it } from 'vitest';
import { treeKeyOutcome } from '../../../src/host/ui/chat/tree-selection.js';

const NONE = { upArrow: false, downArrow: false, escape: false };
const ids = ['lead', 'a', 'b'];

describe('treeKeyOutcome', () => {
  it('moves along the rows, and up past the first leaves the selection', () => {
    expect(treeKeyOutcome(ids, 'a', '', { ...NONE, downArrow: true })).toEqual({
      kind: 'move',
      selected: 'b',
    });
    expect(treeKeyOutcome(ids, 'b', '', { ...NONE, downArrow: true })).toEqual({
      kind: 'move',
      selected: 'b',
    });
    expect(treeKeyOutcome(ids, 'a', '', { ...NONE, upArrow: true })).toEqual({
      kind: 'move',
      selected: 'lead',
    });
    expect(treeKeyOutcome(ids, 'lead', '', { ...NONE, upArrow: true })).toEqual({
      kind: 'move',
      selected: undefined,
    });
  });

  it('a selected row no longer shown moves to the top one', () => {
    expect(treeKeyOutcome(ids, 'gone', '', { ...NONE, downArrow: true })).toEqual({
      kind: 'move',
      selected: 'lead',
    });
  });

  it('Esc cancels the selected agent', () => {
    expect(treeKeyOutcome(ids, 'a', '', { ...NONE, escape: true })).toEqual({ kind: 'cancel', agentId: 'a' });
  });

  it('another key leaves the tree; a printable one still reaches the composer', () => {
    expect(treeKeyOutcome(ids, 'a', 'x', NONE)).toEqual({ kind: 'leave', typed: true });
    expect(treeKeyOutcome(ids, 'a', '', NONE)).toEqual({ kind: 'leave', typed: false });
  });
});
