// Draws the shared StyledLine model (approval prompt, agent tree) with Ink colours.
import { Text } from 'ink';
import type { StyledLine, Tone } from '../approval-view.js';

const STYLE: Record<Tone, { color?: string; bold?: boolean; dimColor?: boolean }> = {
  title: { bold: true },
  body: {},
  dim: { dimColor: true },
  add: { color: 'green' },
  remove: { color: 'red' },
  keys: { color: 'cyan' },
  warn: { color: 'yellow' },
};

/** One line, already sanitized and cut by the line builders. */
function Line({ line }: { line: StyledLine }) {
  return (
    <Text wrap="truncate" {...STYLE[line.tone]}>
      {line.text}
    </Text>
  );
}

/** Several lines. */
export function Lines({ lines }: { lines: readonly StyledLine[] }) {
  return (
    <>
      {lines.map((line, i) => (
        <Line key={i} line={line} />
      ))}
    </>
  );
}
