// Whether one run's model requests offer WebSearch (Anthropic's server-side web search), decided
// at launch: the grant must hold WebSearch, the run's endpoint must offer the tool, and the one
// policy function must allow it outright (a search happens inside the provider's reply, so it
// cannot wait for an approval: `ask` means not offered). The allowed and blocked domains come
// from config; the API takes one list or the other, so with both the blocked ones leave the
// allowed list.
import type { ModelConfig, WebSearchSpec } from '../../shared/run-spec.js';
import type { PermissionMode } from '../../shared/task.js';
import { decide } from '../capabilities/policy.js';
import type { PolicyRules } from '../capabilities/policy/types.js';
import type { WebSearchSettings } from '../config/merge.js';
import { webSearchUnavailable } from './web-search-offer.js';

/** What the launch decided: the tools the run keeps, the search settings, and what to tell. */
export interface WebSearchGrant {
  tools: string[];
  webSearch?: WebSearchSpec;
  /** Why WebSearch was dropped, for a notice to the run's watchers (undefined when nothing was). */
  dropped?: string;
  /** The policy's reason, for the audit log (set when the policy was asked). */
  policyReason?: string;
}

/** The policy's view of the run. */
export interface SearchPolicyContext {
  projectDir: string;
  mode: PermissionMode;
  rules: PolicyRules;
}

/** Decides WebSearch for a run whose grant is `tools` and whose model is `model`. */
export function webSearchGrant(
  tools: readonly string[],
  model: ModelConfig,
  settings: WebSearchSettings,
  policy: SearchPolicyContext,
): WebSearchGrant {
  if (!tools.includes('WebSearch')) return { tools: [...tools] };
  const without = tools.filter((t) => t !== 'WebSearch');
  const unavailable = webSearchUnavailable(model, settings);
  if (unavailable !== undefined) return { tools: without, dropped: unavailable };
  const verdict = decide({ capability: 'web.search', ...policy });
  if (verdict.decision !== 'allow') {
    const why =
      verdict.decision === 'ask'
        ? `${verdict.reason}; a server-side search cannot wait for an approval, so it is not offered`
        : verdict.reason;
    return { tools: without, dropped: why, policyReason: verdict.reason };
  }
  const spec = searchSpec(settings);
  if (spec === undefined)
    return {
      tools: without,
      dropped: 'webSearch.blockedDomains removes every domain of webSearch.allowedDomains',
      policyReason: verdict.reason,
    };
  return { tools: [...tools], webSearch: spec, policyReason: verdict.reason };
}

function searchSpec(settings: WebSearchSettings): WebSearchSpec | undefined {
  const spec: WebSearchSpec = {};
  const blocked = settings.blockedDomains.map((d) => d.toLowerCase());
  const isBlocked = (domain: string) => blocked.some((b) => domain === b || domain.endsWith(`.${b}`));
  if (settings.allowedDomains.length > 0) {
    const allowed = settings.allowedDomains.filter((d) => !isBlocked(d.toLowerCase()));
    if (allowed.length === 0) return undefined;
    spec.allowed_domains = allowed;
  } else if (blocked.length > 0) spec.blocked_domains = settings.blockedDomains;
  if (settings.maxUses !== undefined) spec.max_uses = settings.maxUses;
  return spec;
}
