// The approval queue's view as React state: redrawn at once when the head changes (approvals are
// never batched) and when its key grace ends.
import { useEffect, useState } from 'react';
import type { ApprovalQueue, ApprovalView } from '../approval-queue.js';

/** The current view of `queue`. */
export function useApprovalView(queue: ApprovalQueue): ApprovalView {
  const [view, setView] = useState<ApprovalView>(() => queue.view());
  useEffect(() => {
    setView(queue.view());
    return queue.subscribe(() => setView(queue.view()));
  }, [queue]);
  return view;
}
