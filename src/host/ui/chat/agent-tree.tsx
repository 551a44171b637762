// The live agent tree under the conversation: the same lines as `cadre explore` draws on a TTY.
import { memo } from 'react';
import { Box } from 'ink';
import type { AgentRows } from '../agent-rows.js';
import { treeLines } from '../tree-lines.js';
import { Lines } from './styled.js';

/** The tree, capped at `maxRows` agents; nothing when no agent runs or fades. */
function AgentTreeView(props: {
  rows: AgentRows;
  now: number;
  width: number;
  maxRows: number;
  selected?: string;
}) {
  const lines = treeLines(props.rows, {
    now: props.now,
    width: props.width,
    maxRows: props.maxRows,
    ...(props.selected !== undefined ? { selected: props.selected } : {}),
  });
  if (lines.length === 0) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Lines lines={lines} />
    </Box>
  );
}

/** Drawn again only when its props change (a key or a batch of events redraws the app). */
export const AgentTree = memo(AgentTreeView);
