// The runtime's shared state: configuration, the registry, the scheduler and executor, the runs in
// progress, transcripts and the capability handlers each run gets. The public facade (runtime.ts)
// and the launcher both work on this one object.
import { realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadedAgent, RegistryResult } from '../../shared/agent-definition.js';
import type { Capabilities } from '../../shared/capabilities.js';
import { CadreError } from '../../shared/errors.js';
import type { ConversationMessage } from '../../shared/events.js';
import type { ExtraToolDef, WorkerRunSpec } from '../../shared/run-spec.js';
import type { TaskInput, TaskOutput } from '../../shared/task.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { AuditLog } from '../capabilities/audit.js';
import { effectHandlers } from '../capabilities/fs-handlers.js';
import type { PolicyRules } from '../capabilities/policy/types.js';
import type { SandboxGate } from '../capabilities/sandbox/gate.js';
import type { CadreConfig } from '../config.js';
import type { Executor } from '../pool/executor.js';
import type { Scheduler } from '../pool/scheduler.js';
import { readTranscript, startTranscript, type TranscriptWriter } from '../transcripts/index.js';
import { delegationHandlers } from './delegation-handlers.js';
import { cancelReason, type RunNode } from './launcher.js';
import type { ModelEnv } from './model-resolve.js';

/** Options the runtime was created with that the launcher reads. */
export interface CoreOptions {
  /** Default model for top-level runs (the CLI's --model). */
  model?: string;
  maxTurns?: number;
  /** Write every model exchange to this cassette file. */
  record?: string;
  allowFaultInjection?: boolean;
}

/** Everything a run needs from the runtime. */
export class RuntimeCore {
  readonly running = new Map<string, RunNode>();
  readonly background = new Map<string, RunNode>();
  private readonly byName: Map<string, LoadedAgent>;
  private readonly exchanges: string[] = [];
  private rulesCache: PolicyRules | undefined;

  constructor(
    readonly cwd: string,
    readonly home: string,
    readonly config: CadreConfig,
    readonly registry: RegistryResult,
    readonly env: ModelEnv,
    readonly scheduler: Scheduler,
    readonly executor: Executor,
    readonly approvals: ApprovalBroker,
    readonly audit: AuditLog | undefined,
    readonly transcriptsDir: string,
    readonly options: CoreOptions,
    readonly cassette: string | undefined,
    readonly faultFor: (input: TaskInput) => WorkerRunSpec['fault'] | undefined,
    readonly sandbox: SandboxGate,
  ) {
    this.byName = new Map(registry.agents.map((a) => [a.name, a]));
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

  /** True when an agent type exists. */
  hasAgent(name: string): boolean {
    return this.byName.has(name);
  }

  /** All agent type names, sorted. */
  agentNames(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** The definition of `name`, or a `not_found` error listing the available ones. */
  agent(name: string): LoadedAgent {
    const def = this.byName.get(name);
    if (!def)
      throw new CadreError(
        'not_found',
        `unknown agent type "${name}"; available: ${this.agentNames().join(', ')}`,
      );
    return def;
  }

  /** Agents exposed as tools, offered to runs that may delegate (never to themselves). */
  exposedTools(self: string): ExtraToolDef[] {
    return this.registry.agents
      .filter((a) => a.exposeAsTool && a.name !== self)
      .map((a) => ({
        name: a.name.replace(/-/g, '_'),
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

  /** A task's own project directory (relative to the runtime's), checked to exist. */
  async projectDir(dir: string): Promise<string> {
    const resolved = path.resolve(this.cwd, dir);
    return realpath(resolved).catch(() => {
      throw new CadreError('invalid_input', `cwd: directory ${resolved} does not exist`);
    });
  }

  /** Starts a new run's transcript, or reopens a resumed run's; `ready` says when it is open. */
  startTranscript(agentId: string, resumed: boolean): TranscriptWriter {
    return startTranscript(this.transcriptsDir, agentId, { fresh: !resumed });
  }

  /** The conversation of a finished run, for resume. Refuses unknown and running runs. */
  async resumable(agentId: string): Promise<{ messages: ConversationMessage[] }> {
    if (this.running.has(agentId))
      throw new CadreError(
        'invalid_input',
        `run ${agentId} is still going; it cannot be resumed until it ends`,
      );
    if (!/^[A-Za-z0-9_.-]+$/.test(agentId))
      throw new CadreError('invalid_input', `"${agentId}" is not an agent id`);
    const file = path.join(this.transcriptsDir, `${agentId}.jsonl`);
    const transcript = await readTranscript(file).catch(() => undefined);
    if (!transcript)
      throw new CadreError('not_found', `no transcript for agent id "${agentId}" in ${this.transcriptsDir}`);
    return { messages: transcript.messages };
  }

  /** The capability handlers of one run. */
  handlersFor(
    node: RunNode,
    ctx: { signal: AbortSignal; pauseClock: () => () => void },
  ): Partial<Capabilities> {
    return {
      ...effectHandlers({
        agentId: node.agentId,
        agentType: node.agentType,
        projectDir: node.cwd,
        extraRoots: this.config.permissions.additionalDirectories,
        homeDir: this.home,
        mode: node.grant.mode,
        rules: this.rules,
        sandbox: this.sandbox,
        approvals: this.approvals,
        audit: this.audit,
        signal: ctx.signal,
        pauseClock: ctx.pauseClock,
      }),
      ...delegationHandlers(this, node),
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
