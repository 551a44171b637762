// WebSearch for one run: the launch decision (web-search-grant.ts) made with the run's grant,
// model and project, audited, and told to the run's watchers when WebSearch is dropped; and each
// search the provider ran, audited as the run reports it.
import type { ModelConfig } from '../../shared/run-spec.js';
import { auditCall } from '../capabilities/effect-context.js';
import { type WebSearchGrant, webSearchGrant } from '../web/web-search-grant.js';
import type { RunNode } from './launcher.js';
import type { RuntimeCore } from './runtime-core.js';

/**
 * Decides whether this run's model requests offer WebSearch, audits the policy's verdict, and
 * tells the run's watchers when WebSearch was dropped (and why).
 */
export function offerWebSearch(
  core: RuntimeCore,
  node: RunNode,
  model: ModelConfig,
  notify: (message: string) => void,
): WebSearchGrant {
  const search = webSearchGrant(node.grant.tools, model, core.config.webSearch, {
    projectDir: node.cwd,
    mode: node.grant.mode,
    rules: core.rules,
  });
  if (search.policyReason !== undefined)
    auditCall(
      runAudit(core, node),
      'web.search',
      search.webSearch ? `offered ${JSON.stringify(search.webSearch)}` : 'not offered',
      { decision: search.webSearch ? 'allow' : 'deny' },
      performance.now(),
      { reason: search.dropped ?? search.policyReason, ok: search.webSearch !== undefined },
    );
  if (search.dropped !== undefined) notify(`WebSearch is not offered to this run: ${search.dropped}`);
  return search;
}

/** One search the provider ran for a run, as the run reported it. */
export function auditSearch(core: RuntimeCore, node: RunNode, input: unknown): void {
  const query =
    typeof input === 'object' && input !== null ? (input as { query?: unknown }).query : undefined;
  auditCall(
    runAudit(core, node),
    'web.search',
    `search ${typeof query === 'string' ? query : ''}`,
    { decision: 'allow' },
    performance.now(),
    {
      reason: "run by the model's provider (Anthropic's server-side web search), offered at launch",
      ok: true,
    },
  );
}

/** The run's side of an audit line. */
function runAudit(core: RuntimeCore, node: RunNode): Parameters<typeof auditCall>[0] {
  return { agentId: node.agentId, agentType: node.agentType, audit: core.audit };
}
