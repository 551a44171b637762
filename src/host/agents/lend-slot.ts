// A parent that waits on its children lends its pool slot to them, so nested trees cannot deadlock
// the pool: the slot is given back to the scheduler while the parent waits, and taken again (ahead
// of new runs) once the last of its foreground children is done.
import type { RunNode } from './launcher.js';
import type { RuntimeCore } from './runtime-core.js';

/**
 * Waits for a child while the parent's slot serves others, then takes a slot back once the last of
 * its foreground children is done (a parent may wait on several at once).
 */
export async function waitLendingSlot<T>(core: RuntimeCore, node: RunNode, work: Promise<T>): Promise<T> {
  if (node.waitingOn++ === 0 && node.holdsSlot) {
    node.holdsSlot = false;
    core.scheduler.release();
  }
  try {
    return await work;
  } finally {
    if (--node.waitingOn === 0 && !node.holdsSlot && core.running.has(node.agentId)) {
      // Returning parents go first: their children are done and they hold a thread already.
      await core.scheduler.acquire(node.depth + 1000, undefined, true);
      // A run that ended while it waited gives the slot straight back.
      if (core.running.has(node.agentId)) node.holdsSlot = true;
      else core.scheduler.release();
    }
  }
}
