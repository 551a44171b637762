// Which runs start threads ahead for their subagents, and how many: a run granted Task or an agent
// exposed as a tool, in thread mode, with `prestartThreads` above 0. While its model call is in
// flight it asks for up to `prestartThreads` (never more than one message may start, nor than the
// free slots plus its own, which it lends while it waits on its children).
import type { WorkerRunSpec } from '../../shared/run-spec.js';
import { prestartObserver } from '../pool/prestart-observer.js';
import type { RuntimeCore } from './runtime-core.js';

/** The observer that sizes run `spec`'s threads started ahead, or undefined when none apply. */
export function prestartFor(
  core: RuntimeCore,
  spec: WorkerRunSpec,
): ReturnType<typeof prestartObserver> | undefined {
  const prestart = core.executor.prestart?.bind(core.executor);
  const names = new Set(spec.extraTools.filter((t) => t.kind === 'agent').map((t) => t.name));
  if (spec.tools.includes('Task')) names.add('Task');
  if (!prestart || names.size === 0 || core.config.prestartThreads === 0) return undefined;
  const limit = () => Math.min(core.config.maxTasksPerMessage, core.scheduler.free + 1);
  return prestartObserver({
    names,
    speculative: () => Math.min(core.config.prestartThreads, limit()),
    limit,
    want: (count) => prestart(spec.agentId, count),
  });
}
