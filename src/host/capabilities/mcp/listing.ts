// What `cadre mcp list` shows (and the chat's `/mcp` will): every configured server, inline ones
// included, with where it is configured, whether it is trusted, its status, its tools under the
// names the model sees, and which agents see each tool. Untrusted servers are never started here.
import type { LoadedAgent } from '../../../shared/agent-definition.js';
import { isCadreError } from '../../../shared/errors.js';
import type { PermissionMode } from '../../../shared/task.js';
import { toolMatches } from '../../../shared/tools.js';
import type { McpServerEntry } from '../../config/merge.js';
import { stricterMode } from '../../agents/grant.js';
import { terminalText } from '../../terminal-text.js';
import { decide } from '../policy.js';
import type { PolicyRules } from '../policy/types.js';
import { agentServers, inlineScope, type AgentServer } from './agent-servers.js';
import type { ExpandEnv } from './expand.js';
import type { McpHub } from './hub.js';
import { describeTarget, resolveServer, type McpSource, type SpecBases } from './server-spec.js';
import { serverToolNames } from './tool-names.js';
import { trustId, type TrustStore } from './trust.js';

/** One tool of a listed server. */
interface McpToolStatus {
  /** The name the model sees. */
  name: string;
  /** The name on the server. */
  tool: string;
  readOnly: boolean;
  description: string;
  /** Agents offered this tool (before ancestors' restrictions, which depend on who launches them). */
  agents: string[];
}

/** One listed server. */
export interface McpServerStatus {
  /** As in trust records: `server`, or `agent/server` for an inline definition. */
  id: string;
  name: string;
  scope: 'project' | 'user';
  origin: string;
  /** The agent an inline definition belongs to. */
  agent?: string;
  type?: 'stdio' | 'http' | 'sse';
  /** What it runs or where it connects (header values never shown). */
  runs?: string;
  trusted: boolean;
  status: 'connected' | 'failed' | 'untrusted' | 'disabled' | 'invalid' | 'not started';
  error?: string;
  sandbox?: 'bwrap' | 'none';
  tools: McpToolStatus[];
  /** Agents that may use the server. */
  agents: string[];
}

/** What the listing reads. */
export interface ListingContext {
  configured: Readonly<Record<string, McpServerEntry>>;
  agents: readonly LoadedAgent[];
  trust: TrustStore;
  hub: McpHub;
  env: ExpandEnv;
  bases: SpecBases;
  rules: PolicyRules;
  defaultMode: PermissionMode;
  /** Start trusted servers to read their tools (default true). */
  connect?: boolean;
}

interface Listed {
  source?: McpSource;
  entry?: McpServerEntry;
  users: { agent: LoadedAgent; server: AgentServer }[];
}

/** Every server, configured or inline, with its status and tools. */
export async function listMcpServers(ctx: ListingContext): Promise<McpServerStatus[]> {
  const listed = new Map<string, Listed>();
  for (const [name, entry] of Object.entries(ctx.configured))
    listed.set(name, {
      entry,
      users: [],
      ...(entry.config
        ? { source: { name, config: entry.config, scope: entry.scope, origin: entry.origin } }
        : {}),
    });
  for (const agent of ctx.agents) {
    for (const server of agentServers(agent, ctx.configured).servers) {
      const id = trustId(server.source);
      const known = listed.get(id) ?? { source: server.source, users: [] };
      known.users.push({ agent, server });
      listed.set(id, known);
    }
  }
  const out = await Promise.all([...listed.entries()].map(([id, item]) => describe(id, item, ctx)));
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

async function describe(id: string, item: Listed, ctx: ListingContext): Promise<McpServerStatus> {
  const source = item.source;
  const name = source?.name ?? item.entry?.name ?? id;
  const scope = source?.scope ?? item.entry?.scope ?? 'user';
  const base: McpServerStatus = {
    id,
    name,
    scope,
    origin: source?.origin ?? item.entry?.origin ?? '',
    trusted: source !== undefined && ctx.trust.isTrusted(ctx.bases.cwd, source),
    status: 'not started',
    tools: [],
    agents: [...new Set(item.users.map((u) => u.agent.name))].sort(),
  };
  if (source?.agent !== undefined) base.agent = source.agent;
  if (!source) return { ...base, status: 'invalid', error: item.entry?.error ?? 'cannot be read' };
  base.type = source.config.type;
  if (source.config.disabled === true) return { ...base, status: 'disabled' };
  if (!base.trusted) return { ...base, status: 'untrusted' };
  let spec;
  try {
    spec = resolveServer(source, ctx.env, ctx.bases);
  } catch (error) {
    return { ...base, status: 'invalid', error: isCadreError(error) ? error.message : String(error) };
  }
  base.runs = describeTarget(spec.target);
  if (ctx.connect === false) return base;
  const connection = ctx.hub.connection(spec);
  try {
    const tools = await connection.listTools();
    const names = serverToolNames(
      name,
      tools.map((t) => t.name),
    );
    base.tools = tools.map((tool, i) => {
      const modelName = names[i] as string;
      return {
        name: modelName,
        tool: terminalText(tool.name, { multiline: false }),
        readOnly: tool.readOnly,
        description: terminalText(tool.description.split('\n')[0]?.slice(0, 200) ?? '', { multiline: false }),
        agents: item.users
          .filter((u) => sees(u.agent, u.server, modelName, tool.readOnly, ctx))
          .map((u) => u.agent.name)
          .sort(),
      };
    });
    const status: McpServerStatus = { ...base, status: 'connected' };
    if (connection.sandbox) status.sandbox = connection.sandbox;
    return status;
  } catch (error) {
    return { ...base, status: 'failed', error: isCadreError(error) ? error.message : String(error) };
  }
}

/** Whether a top-level run of `agent` would be offered `name`, as the launch decides it. */
function sees(
  agent: LoadedAgent,
  server: AgentServer,
  name: string,
  readOnly: boolean,
  ctx: ListingContext,
): boolean {
  if (server.tools !== 'all' && !server.tools.some((p) => toolMatches(name, p))) return false;
  if (agent.disallowedTools.some((p) => toolMatches(name, p))) return false;
  const mode = agent.permissionMode ? stricterMode(agent.permissionMode, ctx.defaultMode) : ctx.defaultMode;
  const verdict = decide({
    capability: 'mcp.call',
    tool: name,
    readOnly,
    projectDir: ctx.bases.cwd,
    mode,
    rules: ctx.rules,
  });
  return verdict.decision !== 'deny';
}

/** The project servers of a listing, as sources (what `cadre mcp trust` trusts). */
export function projectSources(
  configured: Readonly<Record<string, McpServerEntry>>,
  agents: readonly LoadedAgent[],
): McpSource[] {
  const out: McpSource[] = [];
  for (const [name, entry] of Object.entries(configured))
    if (entry.scope === 'project' && entry.config)
      out.push({ name, config: entry.config, scope: 'project', origin: entry.origin });
  for (const agent of agents)
    if (inlineScope(agent) === 'project')
      for (const ref of agent.mcpServers ?? [])
        if ('inline' in ref)
          out.push({
            name: ref.name,
            config: ref.inline,
            scope: 'project',
            origin: agent.path,
            agent: agent.name,
          });
  return out;
}
