// What a key does while a row of the agent tree is selected: arrows move along the rows shown, Esc
// cancels the selected agent, and any other key leaves the tree (a printable one is then typed).

/** The keys the tree answers. */
export interface TreeKey {
  upArrow: boolean;
  downArrow: boolean;
  escape: boolean;
}

/** What a key did to the selection. */
export type TreeKeyOutcome =
  /** The selection moved (undefined: up past the first row, back to the composer). */
  | { kind: 'move'; selected: string | undefined }
  /** Cancel this agent; the selection ends. */
  | { kind: 'cancel'; agentId: string }
  /** The selection ends; `typed`: the key still goes to the composer. */
  | { kind: 'leave'; typed: boolean };

/** The outcome of `key` with `selected` among the rows shown (`ids`, top to bottom). */
export function treeKeyOutcome(
  ids: readonly string[],
  selected: string,
  input: string,
  key: TreeKey,
): TreeKeyOutcome {
  const at = ids.indexOf(selected);
  if (key.upArrow) return { kind: 'move', selected: at <= 0 ? undefined : ids[at - 1] };
  if (key.downArrow) return { kind: 'move', selected: ids[Math.min(ids.length - 1, at + 1)] ?? selected };
  if (key.escape) return { kind: 'cancel', agentId: selected };
  return { kind: 'leave', typed: input !== '' };
}
