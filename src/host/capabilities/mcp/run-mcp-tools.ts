// The MCP tools of one run, in two steps. `planMcpServers` (when the run is launched) picks the
// servers its agent may use, keeps the trusted ones and expands their configuration, so a missing
// variable fails the launch with a message naming the server and field. `mcpToolsForRun` (once the
// run has its slot) starts those servers through the hub, reads their tools and keeps the ones the
// grant and the policy allow, as the model's tool definitions and the table `mcp.call` looks names up in.
import type { LoadedAgent } from '../../../shared/agent-definition.js';
import { isCadreError } from '../../../shared/errors.js';
import type { ExtraToolDef } from '../../../shared/run-spec.js';
import type { PermissionMode } from '../../../shared/task.js';
import { parseMcpName } from '../../../shared/mcp-names.js';
import { toolMatches } from '../../../shared/tools.js';
import type { McpServerEntry } from '../../config/merge.js';
import { decide } from '../policy.js';
import type { PolicyRules } from '../policy/types.js';
import { agentServers } from './agent-servers.js';
import type { McpConnection } from './connection.js';
import type { ExpandEnv } from './expand.js';
import type { McpHub } from './hub.js';
import { resolveServer, type ServerSpec, type SpecBases } from './server-spec.js';
import { serverToolNames } from './tool-names.js';
import type { TrustGate } from './trust-gate.js';

/** One MCP tool a run may call. */
export interface RunMcpTool {
  /** The name the model uses (`mcp__server__tool`). */
  name: string;
  /** The server's name as configured, and the tool's name on that server. */
  server: string;
  tool: string;
  readOnly: boolean;
  connection: McpConnection;
  timeoutMs: number;
  maxOutputChars: number;
}

/** The servers a run will use, decided at launch. */
export interface McpPlan {
  servers: { spec: ServerSpec; tools: 'all' | string[] }[];
  notices: string[];
}

/** A run's MCP tools: definitions for the model, and the table calls are looked up in. */
export interface RunMcpTools {
  defs: ExtraToolDef[];
  table: ReadonlyMap<string, RunMcpTool>;
  notices: string[];
  /** Called when the run ends: its inline servers may then end too. */
  release(): void;
}

/** What planning and starting need from the runtime. */
export interface McpRunContext {
  configured: Readonly<Record<string, McpServerEntry>>;
  hub: McpHub;
  trust: TrustGate;
  env: ExpandEnv;
  bases: SpecBases;
  rules: PolicyRules;
}

/** Longest tool description offered to the model, and largest input schema (JSON characters). */
const MAX_DESCRIPTION = 2048;
const MAX_SCHEMA_CHARS = 64 * 1024;

type Agent = Parameters<typeof agentServers>[0] & Pick<LoadedAgent, 'name'>;

/** True when `denied` covers every tool `server` could have (`*`, `mcp__server`, `mcp__server__*`). */
function wholeServerDenied(server: string, denied: readonly string[]): boolean {
  // Only `*`, `mcp__server` and `mcp__server__*` deny every tool the server may ever list.
  return denied.some((p) => {
    if (p === '*') return true;
    const parsed = parseMcpName(p);
    return parsed !== undefined && parsed.server === server && parsed.tool === '*';
  });
}

/**
 * Picks, trust-checks and resolves the servers of `agent`, leaving out servers its grant denies
 * whole (they are never started for it). Throws `invalid_input` for a bad configuration.
 */
export async function planMcpServers(agent: Agent, grant: McpGrant, ctx: McpRunContext): Promise<McpPlan> {
  const found = agentServers(agent, ctx.configured);
  found.servers = found.servers.filter((s) => !wholeServerDenied(s.source.name, grant.deniedTools));
  const notices = found.broken.map((b) => `MCP server "${b.name}" cannot be used: ${b.error}`);
  if (found.missing.length > 0)
    notices.push(
      `no MCP server is configured under the name${found.missing.length > 1 ? 's' : ''} ${found.missing.join(', ')}, which agent ${agent.name} names`,
    );
  if (found.servers.length === 0) return { servers: [], notices };
  const verdict = await ctx.trust.check(found.servers.map((s) => s.source));
  if (verdict.notice) notices.push(verdict.notice);
  const servers = found.servers
    .filter((s) => verdict.trusted.includes(s.source))
    .map((s) => ({ spec: resolveServer(s.source, ctx.env, ctx.bases), tools: s.tools }));
  return { servers, notices };
}

/** What the grant says about MCP tools. */
export interface McpGrant {
  mode: PermissionMode;
  /** Tool patterns denied to this run and its whole subtree. */
  deniedTools: readonly string[];
}

/** Starts the planned servers and returns the tools the run is offered. */
export async function mcpToolsForRun(
  plan: McpPlan,
  grant: McpGrant,
  ctx: Pick<McpRunContext, 'hub' | 'rules' | 'bases'>,
  signal: AbortSignal,
): Promise<RunMcpTools> {
  const notices = [...plan.notices];
  const table = new Map<string, RunMcpTool>();
  const defs: ExtraToolDef[] = [];
  // Inline servers are held for the run's life; configured ones live as long as the hub.
  const releases = plan.servers
    .filter(({ spec }) => spec.agent !== undefined)
    .map(({ spec }) => ctx.hub.hold(spec));
  const release = () => releases.forEach((r) => r());
  const listed = await Promise.all(
    plan.servers.map(async ({ spec, tools }) => {
      const connection = ctx.hub.connection(spec);
      try {
        return { spec, wanted: tools, connection, tools: await connection.listTools(signal) };
      } catch (error) {
        const why = isCadreError(error) ? error.message : String(error);
        notices.push(`MCP server "${spec.name}" is unavailable, its tools are not offered: ${why}`);
        return undefined;
      }
    }),
  );
  for (const server of listed) {
    if (!server) continue;
    const names = serverToolNames(
      server.spec.name,
      server.tools.map((t) => t.name),
    );
    server.tools.forEach((tool, i) => {
      const name = names[i] as string;
      if (server.wanted !== 'all' && !server.wanted.some((p) => toolMatches(name, p))) return;
      if (grant.deniedTools.some((p) => toolMatches(name, p))) return;
      const verdict = decide({
        capability: 'mcp.call',
        tool: name,
        readOnly: tool.readOnly,
        projectDir: ctx.bases.cwd,
        mode: grant.mode,
        rules: ctx.rules,
      });
      if (verdict.decision === 'deny') return;
      const schema = tool.inputSchema;
      if (schema.type !== 'object' || JSON.stringify(schema).length > MAX_SCHEMA_CHARS) {
        notices.push(
          `MCP tool ${name} is not offered: its input schema is not a JSON object schema of at most 64 KiB`,
        );
        return;
      }
      table.set(name, {
        name,
        server: server.spec.name,
        tool: tool.name,
        readOnly: tool.readOnly,
        connection: server.connection,
        timeoutMs: server.spec.timeoutMs,
        maxOutputChars: server.spec.maxOutputChars,
      });
      defs.push({
        name,
        description: tool.description.slice(0, MAX_DESCRIPTION),
        input_schema: schema,
        kind: 'mcp',
        ...(tool.readOnly ? { readOnly: true } : {}),
      });
    });
  }
  return { defs, table, notices, release };
}
