// What the run controller gets from the runtime for one run: the capabilities on its port and
// their handlers, where its events go, its budget check and its model endpoint.
import type { AgentEvent } from '../../shared/events.js';
import { maxModelLineBytes, type WorkerRunSpec } from '../../shared/run-spec.js';
import { totalTokens } from '../../shared/task.js';
import { capabilitiesFor } from '../../shared/tools.js';
import type { RunMcpTools } from '../capabilities/mcp/run-mcp-tools.js';
import type { RunHooks } from '../pool/run-controller.js';
import type { WebSearchGrant } from '../web/web-search-grant.js';
import type { RunNode } from './launcher.js';
import type { prestartFor } from './prestart.js';
import { modelEndpointOf } from './model-resolve.js';
import type { RunPlan } from './run-plan.js';
import type { RuntimeCore } from './runtime-core.js';
import { auditSearch } from './web-search-run.js';

/** A run once it holds its slot: what its hooks are built from. */
export interface SlottedRun {
  core: RuntimeCore;
  node: RunNode;
  plan: RunPlan;
  spec: WorkerRunSpec;
  search: WebSearchGrant;
  mcp: RunMcpTools;
  prestart: ReturnType<typeof prestartFor>;
  /** Puts an event into the run's transcript and its tree's listeners. */
  deliver(event: AgentEvent): void;
  /** The run's identity, stamped on the events the host writes for it. */
  stamp: { agentId: string; depth: number; parentId?: string };
}

/** The controller's hooks for one run. */
export function runHooks(run: SlottedRun): RunHooks {
  const { core, node, plan, spec, deliver, stamp } = run;
  const endpoint = modelEndpointOf(plan.model);
  return {
    granted: [
      // mcp.call exists on the port only when the run was offered MCP tools.
      ...capabilitiesFor(run.search.tools).filter((c) => c !== 'mcp.call'),
      ...(spec.extraTools.some((t) => t.kind === 'agent') ? (['agents.task'] as const) : []),
      ...(run.mcp.table.size > 0 ? (['mcp.call'] as const) : []),
    ],
    handlers: (ctx) =>
      core.handlersFor(node, {
        ...ctx,
        maxResultChars: spec.caps.maxToolResultChars,
        notice: (message) => deliver({ ...stamp, at: Date.now(), type: 'notice', level: 'warn', message }),
        onRefused: (refusal) => deliver({ ...stamp, at: Date.now(), type: 'effect-refused', ...refusal }),
      }),
    onEvent: (event) => {
      if (event.type === 'model-exchange') return core.recordExchange(event.exchange);
      if (event.type === 'tool-call' && event.name === 'WebSearch') auditSearch(core, node, event.input);
      if (event.type === 'usage') node.tree.record(node.runKey, event.usage);
      deliver(event);
    },
    checkBudget: (usage) => {
      const budget = plan.tokenBudget;
      if (budget !== undefined && totalTokens(usage) >= budget)
        return `run token budget of ${budget} exhausted (${totalTokens(usage)} tokens used)`;
      if (node.tree.exhausted()) return `tree token budget of ${node.tree.tokenBudget} exhausted`;
      return undefined;
    },
    ...(endpoint
      ? {
          model: {
            ...endpoint,
            agentId: node.agentId,
            agentType: node.agentType,
            projectDir: node.cwd,
            mode: plan.grant.mode,
            audit: core.audit,
            maxLineBytes: maxModelLineBytes(spec.caps),
            ...(run.prestart ? { observer: run.prestart } : {}),
          },
        }
      : {}),
  };
}
