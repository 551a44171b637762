// MCP for one runtime: its configured servers, its hub (one client per server for the whole
// process) and its trust decisions, behind the two calls a launch makes. An agent that can use no
// MCP server costs nothing: no hub work, no trust file read, no SDK loaded.
import type { LoadedAgent } from '../../../shared/agent-definition.js';
import type { McpServerEntry } from '../../config/merge.js';
import type { PolicyRules } from '../policy/types.js';
import type { ExpandEnv } from './expand.js';
import { McpHub } from './hub.js';
import {
  mcpToolsForRun,
  planMcpServers,
  type McpGrant,
  type McpPlan,
  type RunMcpTools,
} from './run-mcp-tools.js';
import { TrustGate, type TrustPrompt } from './trust-gate.js';
import { TrustStore } from './trust.js';

/** What the runtime knows that MCP needs. */
export interface McpRuntimeOptions {
  configured: Readonly<Record<string, McpServerEntry>>;
  env: ExpandEnv;
  /** The project directory (real path). */
  cwd: string;
  home: string;
  sandboxMode: 'auto' | 'required' | 'off';
  rules: PolicyRules;
  /** Asks a person to trust project servers; without it they are refused with the command that trusts them. */
  trustPrompt?: TrustPrompt;
}

const NO_PLAN: McpPlan = { servers: [], notices: [] };
const NO_TOOLS: RunMcpTools = { defs: [], table: new Map(), notices: [], release: () => undefined };

/** MCP servers and tools for the runs of one runtime. */
export class McpRuntime {
  readonly hub: McpHub;
  private readonly trust: TrustGate;

  constructor(private readonly options: McpRuntimeOptions) {
    this.hub = new McpHub({ projectDir: options.cwd, home: options.home, sandboxMode: options.sandboxMode });
    this.trust = new TrustGate(() => TrustStore.open(options.home), options.cwd, options.trustPrompt);
  }

  /** The servers `agent` will use (trusted, configuration expanded). Throws `invalid_input` for a bad configuration. */
  plan(agent: LoadedAgent, grant: McpGrant): Promise<McpPlan> {
    const names = agent.tools.some((t) => t.startsWith('mcp__')) || (agent.mcpServers?.length ?? 0) > 0;
    if (!names && (agent.inheritsMcpTools !== true || Object.keys(this.options.configured).length === 0))
      return Promise.resolve(NO_PLAN);
    return planMcpServers(agent, grant, {
      configured: this.options.configured,
      hub: this.hub,
      trust: this.trust,
      env: this.options.env,
      bases: { cwd: this.options.cwd, home: this.options.home },
      rules: this.options.rules,
    });
  }

  /** Starts the planned servers and returns the tools `grant` allows. */
  tools(plan: McpPlan, grant: McpGrant, signal: AbortSignal): Promise<RunMcpTools> {
    if (plan.servers.length === 0 && plan.notices.length === 0) return Promise.resolve(NO_TOOLS);
    return mcpToolsForRun(
      plan,
      grant,
      { hub: this.hub, rules: this.options.rules, bases: { cwd: this.options.cwd, home: this.options.home } },
      signal,
    );
  }

  /** Ends every server the runtime started, with its process tree. */
  close(): Promise<void> {
    return this.hub.close();
  }
}
