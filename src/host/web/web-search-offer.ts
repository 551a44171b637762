// Whether a run's model endpoint offers Anthropic's server-side web search tool: Anthropic's own
// API does, and so do the base URLs the user lists in `webSearch.endpoints` (a proxy in front of
// it). Everywhere else (a local model, the offline model) WebSearch is not in effect.
import { DEFAULT_MODEL_BASE_URL } from '../../shared/model-wire.js';
import type { ModelConfig } from '../../shared/run-spec.js';
import type { WebSearchSettings } from '../config/merge.js';

/** Why `model`'s endpoint cannot run WebSearch, or undefined when it can. */
export function webSearchUnavailable(model: ModelConfig, settings: WebSearchSettings): string | undefined {
  if (model.provider === 'offline') return 'the offline model cannot search the web';
  if (model.provider === 'replay') return 'a replayed run makes no new searches';
  const base = model.baseURL ?? DEFAULT_MODEL_BASE_URL;
  if (sameEndpoint(base, DEFAULT_MODEL_BASE_URL)) return undefined;
  if (settings.endpoints.some((e) => sameEndpoint(e, base))) return undefined;
  return `${origin(base)} is not known to offer Anthropic's server-side web search (list it in webSearch.endpoints in .cadre/config.json if it does)`;
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

// Same scheme, host, port and path (a trailing slash aside).
function sameEndpoint(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.origin === y.origin && x.pathname.replace(/\/+$/, '') === y.pathname.replace(/\/+$/, '');
  } catch {
    return false;
  }
}
