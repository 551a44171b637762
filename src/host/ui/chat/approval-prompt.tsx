// The approval prompt: the head of the queue (one request at a time, with its place in the queue),
// drawn from the same lines as the plain terminal prompt, in a box that stands out.
import { memo } from 'react';
import { Box } from 'ink';
import type { ApprovalView } from '../approval-queue.js';
import { approvalLines } from '../approval-view.js';
import { Lines } from './styled.js';

/** The prompt, or nothing when no request waits. */
function ApprovalPromptView({
  view,
  width,
  maxBody,
}: {
  view: ApprovalView;
  width: number;
  maxBody: number;
}) {
  if (!view.head) return null;
  return (
    <Box borderStyle="round" borderColor="yellow" flexDirection="column" paddingX={1}>
      <Lines lines={approvalLines(view, Math.max(20, width - 4), maxBody)} />
    </Box>
  );
}

/** Drawn again only when its props change (a key or a batch of events redraws the app). */
export const ApprovalPrompt = memo(ApprovalPromptView);
