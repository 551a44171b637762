// Which MCP servers an agent may use, and which of their tools (pure). An agent with every tool
// (`tools` omitted, `*`, full-access) gets every configured server; `mcpServers` adds the servers
// it names and its inline ones (whole); `mcp__server__tool`, `mcp__server__*` and `mcp__server` in
// `tools` name tools of configured servers. Deny lists are applied later, to the tools' names.
import type { AgentSource, LoadedAgent } from '../../../shared/agent-definition.js';
import type { McpServerEntry } from '../../config/merge.js';
import type { McpSource } from './server-spec.js';

/** A server an agent may use: its source, and `all` of its tools or those matching `patterns`. */
export interface AgentServer {
  source: McpSource;
  tools: 'all' | string[];
}

/** The servers of one agent, and the problems in how it names them. */
export interface AgentServers {
  servers: AgentServer[];
  /** Named servers that are configured but unusable (a `.mcp.json` entry cadre cannot read). */
  broken: { name: string; error: string }[];
  /** Names that no configuration defines. */
  missing: string[];
}

const PROJECT_SOURCES: ReadonlySet<AgentSource> = new Set(['project-config', 'project', 'project-claude']);

/** The server an `mcp__server...` tool entry belongs to (server names never contain `__`). */
export function serverOfPattern(entry: string): string | undefined {
  if (!entry.startsWith('mcp__')) return undefined;
  const rest = entry.slice(5);
  const end = rest.indexOf('__');
  const name = end < 0 ? rest : rest.slice(0, end);
  return name === '' || name === '*' ? undefined : name;
}

/** Where an agent's inline servers count as configured: the project's files need trust. */
export function inlineScope(agent: Pick<LoadedAgent, 'source'>): McpSource['scope'] {
  return PROJECT_SOURCES.has(agent.source) ? 'project' : 'user';
}

type Agent = Pick<LoadedAgent, 'name' | 'source' | 'path' | 'tools'> &
  Partial<Pick<LoadedAgent, 'inheritsMcpTools' | 'mcpServers'>>;

/** Resolves the servers `agent` may use against the configured ones. */
export function agentServers(
  agent: Agent,
  configured: Readonly<Record<string, McpServerEntry>>,
): AgentServers {
  const out: AgentServers = { servers: [], broken: [], missing: [] };
  const byName = new Map<string, AgentServer>();
  const useConfigured = (name: string, tools: 'all' | string[]) => {
    const entry = Object.hasOwn(configured, name) ? configured[name] : undefined;
    if (!entry) {
      if (!out.missing.includes(name)) out.missing.push(name);
      return;
    }
    if (entry.config === undefined) {
      if (!out.broken.some((b) => b.name === name))
        out.broken.push({ name, error: entry.error ?? `MCP server "${name}" cannot be used` });
      return;
    }
    if (entry.config.disabled === true) return;
    const known = byName.get(name);
    if (known) {
      if (known.tools !== 'all') known.tools = tools === 'all' ? 'all' : [...known.tools, ...tools];
      return;
    }
    byName.set(name, {
      source: { name, config: entry.config, scope: entry.scope, origin: entry.origin },
      tools,
    });
  };
  if (agent.inheritsMcpTools === true) for (const name of Object.keys(configured)) useConfigured(name, 'all');
  for (const entry of agent.tools) {
    const server = serverOfPattern(entry);
    if (server !== undefined) useConfigured(server, [entry]);
  }
  for (const ref of agent.mcpServers ?? []) {
    if (!('inline' in ref)) {
      useConfigured(ref.name, 'all');
      continue;
    }
    if (ref.inline.disabled === true) {
      byName.delete(ref.name);
      continue;
    }
    // An inline definition replaces a configured server of the same name, for this agent only.
    byName.set(ref.name, {
      source: {
        name: ref.name,
        config: ref.inline,
        scope: inlineScope(agent),
        origin: agent.path,
        agent: agent.name,
      },
      tools: 'all',
    });
  }
  out.servers = [...byName.values()];
  return out;
}
