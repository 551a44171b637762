// Verdicts for the capabilities that touch no file path: web fetches (by domain), MCP tools (by
// server and tool name), subagent launches (by agent type) and the run's own bookkeeping.
import { mcpPatternMatches, mcpToolName, parseMcpName } from '../../../shared/mcp-names.js';
import type { PermissionMode } from '../../../shared/task.js';
import { modeDefault, type EffectKind } from './mode.js';
import { ruleVerdict, type ParsedRule, type ParsedRules, type RuleTool } from './rules.js';
import type { PolicyDecision } from './types.js';

/** What these decisions need. */
export interface ServiceContext {
  mode: PermissionMode;
  rules: ParsedRules;
}

/**
 * The shared order for rule-matched services: deny rules, ask rules (not in bypassPermissions),
 * allow rules, then the mode. `forbiddenInPlan` kinds are denied in plan mode unless allowed by a rule.
 */
function byRules(
  ctx: ServiceContext,
  matches: (r: ParsedRule) => boolean,
  kind: EffectKind,
  what: string,
  suggestions: string[],
): PolicyDecision {
  const deny = ctx.rules.deny.find(matches);
  if (deny) return ruleVerdict('deny', deny, what);
  if (ctx.mode !== 'bypassPermissions') {
    const ask = ctx.rules.ask.find(matches);
    if (ask) return ruleVerdict('ask', ask, what);
  }
  const allow = ctx.rules.allow.find(matches);
  if (allow) return ruleVerdict('allow', allow, what);
  return modeDefault(ctx.mode, kind, what, suggestions);
}

/**
 * A `WebFetch(domain:...)` rule's domain as the URL parser spells a host: lower case, no trailing
 * dot (rules are ASCII: `validateRules` refuses others); a `*.` prefix and a `:port` suffix are kept.
 */
function ruleDomain(spec: string): string {
  const m = /^(\*\.)?(.*?)(:\d+)?$/.exec(spec.trim().toLowerCase());
  return `${m?.[1] ?? ''}${(m?.[2] ?? '').replace(/\.+$/, '')}${m?.[3] ?? ''}`;
}

/** `web.fetch`: http(s) only; `WebFetch(domain:host)` or `WebFetch(domain:*.host)` rules. */
export function decideWeb(url: unknown, ctx: ServiceContext): PolicyDecision {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return {
      decision: 'deny',
      code: 'invalid_input',
      reason: `web.fetch: "${String(url).slice(0, 100)}" is not a URL`,
    };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return {
      decision: 'deny',
      code: 'invalid_input',
      reason: `web.fetch: only http and https URLs can be fetched, not ${parsed.protocol}`,
    };
  }
  // `evil.com.` is the same host as `evil.com` (a fully qualified name): a deny rule binds both.
  const host = parsed.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');
  const hostPort = parsed.port ? `${host}:${parsed.port}` : host;
  const matches = (r: ParsedRule) => {
    if (r.tool !== 'WebFetch') return false;
    if (r.specifier === undefined) return true;
    const want = ruleDomain(r.specifier.slice('domain:'.length));
    const target = want.includes(':') ? hostPort : host;
    if (want.startsWith('*.')) return target.endsWith(want.slice(1));
    return target === want;
  };
  return byRules(ctx, matches, 'web', `fetching ${parsed.origin}`, [`WebFetch(domain:${host})`]);
}

/**
 * `web.search`: whether a run's model may be offered the provider's server-side web search.
 * `WebSearch` rules; allowed by default in every mode (it reads the web and writes nothing), as in
 * Claude Code. Decided once at launch: a search cannot wait for an approval, so the caller treats
 * `ask` as not offered.
 */
export function decideWebSearch(ctx: ServiceContext): PolicyDecision {
  return byRules(ctx, (r) => r.tool === 'WebSearch', 'read', 'searching the web', []);
}

/**
 * `mcp.call`: `mcp__server`, `mcp__server__*` or `mcp__server__tool` rules. A call asks by default;
 * a tool its server annotates read-only is judged as a read (allowed where the mode allows reads).
 */
export function decideMcp(tool: unknown, ctx: ServiceContext, readOnly = false): PolicyDecision {
  const parsed = typeof tool === 'string' ? parseMcpName(tool) : undefined;
  if (
    typeof tool !== 'string' ||
    parsed === undefined ||
    parsed.tool === '*' ||
    tool !== mcpToolName(parsed)
  ) {
    return {
      decision: 'deny',
      code: 'invalid_input',
      reason: 'mcp.call: the tool must be named mcp__server__tool',
    };
  }
  const matches = (r: ParsedRule) =>
    r.tool === 'mcp' && r.mcpName !== undefined && mcpPatternMatches(r.mcpName, tool);
  return byRules(ctx, matches, readOnly ? 'read' : 'mcp', `calling ${tool}`, [tool]);
}

/** `agents.task`: `Task` / `Agent` rules, optionally naming agent types. Allowed by default in every mode. */
export function decideTask(agentType: unknown, ctx: ServiceContext): PolicyDecision {
  const type = typeof agentType === 'string' ? agentType : undefined;
  // Agent names are looked up case-insensitively, so rules name them that way too.
  const matches = (r: ParsedRule) => {
    if (r.tool !== 'Task') return false;
    if (r.specifier === undefined) return true;
    const types = r.specifier.split(',').map((s) => s.trim().toLowerCase());
    return types.includes('*') || (type !== undefined && types.includes(type.toLowerCase()));
  };
  return byRules(ctx, matches, 'agent', `starting a ${type ?? 'subagent'} agent`, []);
}

const BOOKKEEPING: Record<string, RuleTool | undefined> = {
  'events.emit': undefined,
  'agents.output': 'TaskOutput',
  'agents.stop': 'TaskStop',
  'todos.read': 'TodoRead',
  'todos.write': 'TodoWrite',
};

/** True for capabilities that only touch the run's own state. */
export function isBookkeeping(capability: string): boolean {
  return Object.prototype.hasOwnProperty.call(BOOKKEEPING, capability);
}

/** Bookkeeping capabilities: allowed unless a rule names their tool. */
export function decideBookkeeping(capability: string, ctx: ServiceContext): PolicyDecision {
  const tool = BOOKKEEPING[capability];
  if (tool === undefined) return { decision: 'allow', reason: `${capability}: always allowed` };
  return byRules(ctx, (r) => r.tool === tool, 'internal', capability, []);
}

/**
 * `model.request`: a run's model client may reach its own model endpoint and nothing else: same
 * scheme, host and port as the endpoint, and a path under the endpoint's path. Rules and modes do
 * not apply (every mode needs its model); the endpoint comes from the host's config, never from
 * the worker.
 */
export function decideModelRequest(url: unknown, endpoint: unknown): PolicyDecision {
  let target: URL;
  let base: URL;
  try {
    base = new URL(String(endpoint));
  } catch {
    return { decision: 'deny', code: 'internal', reason: 'model.request: the run has no model endpoint' };
  }
  try {
    target = new URL(String(url));
  } catch {
    return {
      decision: 'deny',
      code: 'invalid_input',
      reason: `model.request: "${String(url).slice(0, 100)}" is not a URL`,
    };
  }
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  const inside =
    target.protocol === base.protocol &&
    target.host === base.host &&
    target.username === '' &&
    target.password === '' &&
    (target.pathname === base.pathname || target.pathname.startsWith(prefix));
  if (!inside) {
    return {
      decision: 'deny',
      code: 'not_granted',
      reason: `model.request: ${target.origin}${target.pathname.slice(0, 100)} is not this run's model endpoint (${base.origin}${base.pathname})`,
    };
  }
  return { decision: 'allow', reason: "the run's own model endpoint" };
}
