// Which runs start threads ahead for their subagents, and how many: a run granted Task or an agent
// exposed as a tool, in thread mode, with `prestartThreads` above 0. While its model call is in
// flight it keeps `prestartThreads` threads ahead of the delegation blocks its reply has begun
// (prestart-observer.ts), and never more than its children could use: one message starts at most
// maxTasksPerMessage, the tree at most what is left of maxSubagents, and they run in the free slots
// plus the run's own (lent while it waits on them). With `prestartLearn` (default on) it also keeps
// as many as its agent's latest runs in this project put in one reply (fanout-memory.ts), under
// the same caps, and its own replies are remembered for the next run.
import type { WorkerRunSpec } from '../../shared/run-spec.js';
import { prestartObserver } from '../pool/prestart-observer.js';
import type { RuntimeCore } from './runtime-core.js';
import type { AgentTree } from './tree.js';

/** The observer that sizes run `spec`'s threads started ahead, or undefined when none apply. */
export function prestartFor(
  core: RuntimeCore,
  spec: WorkerRunSpec,
  tree: AgentTree,
): ReturnType<typeof prestartObserver> | undefined {
  const prestart = core.executor.prestart?.bind(core.executor);
  const names = new Set(spec.extraTools.filter((t) => t.kind === 'agent').map((t) => t.name));
  if (spec.tools.includes('Task')) names.add('Task');
  if (!prestart || names.size === 0 || core.config.prestartThreads === 0) return undefined;
  const limit = () =>
    Math.max(
      0,
      Math.min(
        core.config.maxTasksPerMessage,
        core.config.maxSubagents - tree.spawned,
        core.scheduler.free + 1,
      ),
    );
  const memory = core.config.prestartLearn ? core.fanout : undefined;
  return prestartObserver({
    names,
    ahead: () => core.config.prestartThreads,
    limit,
    want: (count) => prestart(spec.agentId, count),
    ...(memory
      ? {
          remembered: (turn: number) => memory.predict(spec.agentType, turn),
          remember: (widths: readonly number[]) => memory.record(spec.agentType, widths),
        }
      : {}),
  });
}
