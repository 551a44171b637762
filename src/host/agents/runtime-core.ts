// The runtime's shared state: configuration, the registry, the scheduler and executor, the runs in
// progress, transcripts and the capability handlers each run gets. The public facade (runtime.ts)
// and the launcher both work on this one object.
import { realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadedAgent, RegistryResult } from '../../shared/agent-definition.js';
import { agentKey, AgentNames } from '../../shared/agent-name.js';
import type { Capabilities } from '../../shared/capabilities.js';
import { CadreError, isCadreError } from '../../shared/errors.js';
import type { ConversationMessage } from '../../shared/events.js';
import type { ExtraToolDef } from '../../shared/run-spec.js';
import type { TaskOutput } from '../../shared/task.js';
import { TOOL_NAMES } from '../../shared/tool-names.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { AuditLog } from '../capabilities/audit.js';
import type { EffectContext, EffectRefusal } from '../capabilities/effect-context.js';
import { effectHandlers } from '../capabilities/fs-handlers.js';
import { mcpCallHandler } from '../capabilities/mcp/call-handler.js';
import type { McpRuntime } from '../capabilities/mcp/mcp-runtime.js';
import { isUnder } from '../capabilities/policy/path-match.js';
import type { PolicyRules } from '../capabilities/policy/types.js';
import type { SandboxGate } from '../capabilities/sandbox/gate.js';
import type { CadreConfig } from '../config.js';
import type { Executor } from '../pool/executor.js';
import type { Scheduler } from '../pool/scheduler.js';
import { checkReplay, readTranscript, startTranscript, type TranscriptWriter } from '../transcripts/index.js';
import { webHandlers } from '../web/web-fetch-handler.js';
import { delegationHandlers } from './delegation-handlers.js';
import { cancelReason } from './cancel-reason.js';
import type { FanoutMemory } from './fanout-memory.js';
import type { RunNode } from './launcher.js';
import type { ModelEnv } from './model-resolve.js';

/**
 * The agent type a transcript was written by: its header's, or for a transcript from before headers
 * named it, the agent id's prefix (ids are `<type>-<8 hex>`).
 */
function recordedType(header: Record<string, unknown> | undefined, agentId: string): string {
  const type = header?.['agentType'];
  if (typeof type === 'string') return type;
  return /^(.+)-[0-9a-f]{8}$/.exec(agentId)?.[1] ?? '(unknown)';
}

/** Options the runtime was created with that the launcher reads. */
export interface CoreOptions {
  /** Default model for top-level runs (the CLI's --model). */
  model?: string;
  maxTurns?: number;
  /** Write every model exchange to this cassette file. */
  record?: string;
}

/** What a runtime core is made of: the runtime's settings and the parts every run shares. */
export interface RuntimeCoreParts {
  cwd: string;
  home: string;
  config: CadreConfig;
  registry: RegistryResult;
  env: ModelEnv;
  scheduler: Scheduler;
  executor: Executor;
  approvals: ApprovalBroker;
  audit: AuditLog | undefined;
  transcriptsDir: string;
  /** cadre's own records (absolute, real and as written): out of every file capability's reach. */
  records: readonly string[];
  options: CoreOptions;
  cassette: string | undefined;
  /** The MCP servers of this runtime, shared by all its runs. */
  mcp: McpRuntime;
  /** The command sandbox: its settings, the probe, and what the user is told. */
  sandbox: SandboxGate;
  /** How wide this project's agents fanned out before; absent: nothing remembered nor written. */
  fanout?: FanoutMemory;
}

/** Everything a run needs from the runtime. */
/** Tool names no exposed agent may take, lower-cased: the built-ins and the server-side search. */
const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set(
  [...TOOL_NAMES, 'web_search'].map((n) => n.toLowerCase()),
);

export class RuntimeCore {
  readonly running = new Map<string, RunNode>();
  readonly background = new Map<string, RunNode>();
  readonly cwd: string;
  readonly home: string;
  readonly config: CadreConfig;
  readonly env: ModelEnv;
  readonly scheduler: Scheduler;
  readonly executor: Executor;
  readonly approvals: ApprovalBroker;
  readonly audit: AuditLog | undefined;
  readonly transcriptsDir: string;
  /** cadre's own records (absolute, real and as written): out of every file capability's reach. */
  readonly records: readonly string[];
  readonly options: CoreOptions;
  readonly cassette: string | undefined;
  /** The MCP servers of this runtime, shared by all its runs. */
  readonly mcp: McpRuntime;
  /** The command sandbox: its settings, the probe, and what the user is told. */
  readonly sandbox: SandboxGate;
  /** How wide this project's agents fanned out before; absent: nothing remembered nor written. */
  readonly fanout: FanoutMemory | undefined;
  /** Definitions by name as written; names are looked up (any case) through `names`. */
  private byName: Map<string, LoadedAgent>;
  private names: AgentNames;
  private currentRegistry: RegistryResult;
  private readonly exchanges: string[] = [];
  private rulesCache: PolicyRules | undefined;

  constructor(parts: RuntimeCoreParts) {
    this.cwd = parts.cwd;
    this.home = parts.home;
    this.config = parts.config;
    this.env = parts.env;
    this.scheduler = parts.scheduler;
    this.executor = parts.executor;
    this.approvals = parts.approvals;
    this.audit = parts.audit;
    this.transcriptsDir = parts.transcriptsDir;
    this.records = parts.records;
    this.options = parts.options;
    this.cassette = parts.cassette;
    this.mcp = parts.mcp;
    this.sandbox = parts.sandbox;
    this.fanout = parts.fanout;
    this.currentRegistry = parts.registry;
    this.byName = new Map(parts.registry.agents.map((a) => [a.name, a]));
    this.names = new AgentNames(parts.registry.agents.map((a) => a.name));
  }

  /** The agents in force. */
  get registry(): RegistryResult {
    return this.currentRegistry;
  }

  /** Uses a freshly loaded registry for every later launch (runs going keep their definitions). */
  replaceRegistry(registry: RegistryResult): void {
    this.currentRegistry = registry;
    this.byName = new Map(registry.agents.map((a) => [a.name, a]));
    this.names = new AgentNames(registry.agents.map((a) => a.name));
  }

  /** Permission rules from config (one object for the runtime's life, so the policy's parse is reused). */
  get rules(): PolicyRules {
    this.rulesCache ??= {
      allow: this.config.permissions.allow,
      ask: this.config.permissions.ask,
      deny: this.config.permissions.deny,
    };
    return this.rulesCache;
  }

  /** True when an agent type exists (names are matched case-insensitively). */
  hasAgent(name: string): boolean {
    return this.names.lookup(name).found !== undefined;
  }

  /** All agent type names as written, sorted. */
  agentNames(): string[] {
    return this.names.all();
  }

  /** The definition of `name` (any case), or a `not_found` error listing the available ones. */
  agent(name: string): LoadedAgent {
    const lookup = this.names.lookup(name);
    const def = lookup.found === undefined ? undefined : this.byName.get(lookup.found);
    if (!def) {
      const hint = lookup.hint;
      throw new CadreError(
        'not_found',
        `unknown agent type "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; available: ${this.agentNames().join(', ')}`,
        hint ? { suggestion: hint } : undefined,
      );
    }
    return def;
  }

  /**
   * Agents exposed as tools, offered to runs that may delegate (never to themselves). An agent whose
   * tool name would be a built-in tool's (`Read`, `bash`), the server-side search's or an MCP
   * tool's (`mcp__github__create_issue` from `mcp--github--create-issue`) is not offered: a cloned
   * repository's agent would otherwise answer every Read call with text of its choosing.
   */
  exposedTools(self: string): ExtraToolDef[] {
    return this.registry.agents
      .filter((a) => a.exposeAsTool && agentKey(a.name) !== agentKey(self))
      .map((a) => ({ agent: a, name: a.name.replace(/[^A-Za-z0-9_]/g, '_') }))
      .filter(({ name }) => !RESERVED_TOOL_NAMES.has(name.toLowerCase()) && !/^mcp__/i.test(name))
      .map(({ agent: a, name }) => ({
        // Tool names allow letters, digits, `_` and `-` only.
        name,
        description: a.description,
        input_schema: a.input ?? {
          type: 'object',
          properties: { prompt: { type: 'string', description: 'The task' } },
          required: ['prompt'],
        },
        kind: 'agent' as const,
        agentType: a.name,
      }));
  }

  /**
   * A task's own project directory (relative to the runtime's), checked to exist and to lead, where
   * it really leads, into the runtime's project: a task's `cwd` comes from data (a batch tasks file
   * a repository ships), and its directory becomes the jail and the sandbox's writable root, so
   * `"cwd": "/"` or `".."` must not widen them.
   */
  async projectDir(dir: string): Promise<string> {
    const resolved = path.resolve(this.cwd, dir);
    const real = await realpath(resolved).catch(() => {
      throw new CadreError('invalid_input', `cwd: directory ${resolved} does not exist`);
    });
    const root = await realpath(this.cwd).catch(() => this.cwd);
    if (!isUnder(real, root))
      throw new CadreError(
        'invalid_input',
        `cwd: ${resolved} is outside the project ${root}; a task may only run in the project or a directory in it (start cadre with --cwd there instead)`,
      );
    return real;
  }

  /** Starts a new run's transcript, or reopens a resumed run's; `ready` says when it is open. */
  startTranscript(
    agentId: string,
    resumed: boolean,
    header: { agentType: string; tree: string; parentId?: string },
  ): TranscriptWriter {
    return startTranscript(this.transcriptsDir, agentId, { fresh: !resumed, header });
  }

  /**
   * The conversation of a finished run, for resume, what had to be repaired to rebuild it, and the
   * tree it belongs to. Refuses unknown and running runs, a run of another agent type, for a
   * subagent's resume (`tree` given) a run its own tree did not start (one tree never loads what
   * another saw), and a transcript that does not replay into a valid conversation (naming the line).
   */
  async resumable(
    agentId: string,
    scope: { agentType: string; tree?: string },
  ): Promise<{ messages: ConversationMessage[]; warnings: string[]; tree?: string }> {
    if (this.running.has(agentId))
      throw new CadreError(
        'invalid_input',
        `run ${agentId} is still going; it cannot be resumed until it ends`,
      );
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(agentId) || agentId.includes('..'))
      throw new CadreError('invalid_input', `"${agentId.slice(0, 80)}" is not an agent id`);
    const file = path.join(this.transcriptsDir, `${agentId}.jsonl`);
    // A subagent gets one answer for "no such run", "another tree's run" and "unreadable": a model
    // learns nothing of other trees. A person is told why a transcript could not be read.
    const transcript = await readTranscript(file, { events: false }).catch((error: unknown) => {
      if (scope.tree !== undefined || (isCadreError(error) && error.code === 'not_found')) return undefined;
      throw error;
    });
    const tree = typeof transcript?.header?.['tree'] === 'string' ? transcript.header['tree'] : undefined;
    if (!transcript || (scope.tree !== undefined && tree !== scope.tree)) {
      const where =
        scope.tree !== undefined
          ? 'in this agent tree; a subagent can resume only runs its own tree started (a person can resume any run with `cadre run <agent> <prompt> --resume ID`)'
          : `in ${this.transcriptsDir}`;
      throw new CadreError('not_found', `no finished run "${agentId}" ${where}`);
    }
    const recorded = recordedType(transcript.header, agentId);
    if (recorded !== scope.agentType)
      throw new CadreError(
        'invalid_input',
        `run ${agentId} is a${/^[aeiou]/.test(recorded) ? 'n' : ''} "${recorded}" run; it can be resumed only as "${recorded}", not "${scope.agentType}"`,
      );
    const { messages, warnings } = checkReplay(transcript);
    return { messages, warnings, ...(tree !== undefined ? { tree } : {}) };
  }

  /** The capability handlers of one run. */
  handlersFor(
    node: RunNode,
    ctx: {
      signal: AbortSignal;
      pauseClock: () => () => void;
      notice?: (message: string) => void;
      onRefused?: (refusal: EffectRefusal) => void;
      /** The worker's cap on one tool result: an MCP result is cut to it here, once. */
      maxResultChars?: number;
    },
  ): Partial<Capabilities> {
    // One authorization context for every capability of the run: file effects, commands and
    // delegation ask, pause the clock, audit and report the same way.
    const effects: EffectContext = {
      agentId: node.agentId,
      agentType: node.agentType,
      ...(node.parent ? { parentId: node.parent.agentId, parentType: node.parent.agentType } : {}),
      depth: node.depth,
      projectDir: node.cwd,
      extraRoots: this.config.permissions.additionalDirectories,
      homeDir: this.home,
      mode: node.grant.mode,
      rules: this.rules,
      records: this.records,
      protect: this.config.sandbox.protect,
      sandbox: this.sandbox,
      approvals: this.approvals,
      audit: this.audit,
      signal: ctx.signal,
      pauseClock: ctx.pauseClock,
      ...(ctx.notice ? { notice: ctx.notice } : {}),
      ...(ctx.onRefused ? { onRefused: ctx.onRefused } : {}),
      report: (event) => node.report(event),
    };
    const mcp = node.mcp?.table;
    return {
      ...effectHandlers(effects),
      ...webHandlers(effects, this.config.webFetch),
      ...delegationHandlers(this, node, effects),
      ...(mcp && mcp.size > 0 ? { 'mcp.call': mcpCallHandler(effects, mcp, ctx.maxResultChars) } : {}),
    };
  }

  private readonly resuming = new Set<string>();

  /** Claims an agent id for resume; refuses one that is running or already being resumed. */
  reserveResume(agentId: string): void {
    if (this.running.has(agentId) || this.resuming.has(agentId)) {
      throw new CadreError(
        'invalid_input',
        `run ${agentId} is still going; it cannot be resumed until it ends`,
      );
    }
    this.resuming.add(agentId);
  }

  /** Gives a resume claim back. */
  releaseResume(agentId: string): void {
    this.resuming.delete(agentId);
  }

  /** Keeps a recorded model exchange for the cassette. */
  recordExchange(exchange: unknown): void {
    this.exchanges.push(JSON.stringify(exchange));
  }

  /** Writes the cassette, when recording. */
  async flushCassette(): Promise<void> {
    if (this.options.record && this.exchanges.length > 0)
      await writeFile(this.options.record, this.exchanges.join('\n') + '\n');
  }

  /** Outputs of runs still going, cancelled. */
  async cancelAll(): Promise<TaskOutput[]> {
    const nodes = [...this.running.values()];
    for (const node of nodes) node.cancel.abort(cancelReason('user_cancelled'));
    return Promise.all(nodes.map((n) => n.done));
  }
}
