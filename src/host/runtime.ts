// createRuntime(): the library facade. Loads config (runtime-config.ts) and the registry
// (runtime-agents.ts) once, starts the executor (runtime-executor.ts), builds the runtime's core,
// and returns the facade whose tasks (runtime-tasks.ts) are each events plus one TaskOutput.
import os from 'node:os';
import type { AgentInput, RegistryResult } from '../shared/agent-definition.js';
import type { AgentEvent } from '../shared/events.js';
import type { TaskInput, TaskOutput, Usage } from '../shared/task.js';
import { runBatch, type BatchOptions, type BatchResult } from './batch/run-batch.js';
import type { BatchTask } from './batch/task-file.js';
import { cancelReason } from './agents/cancel-reason.js';
import type { ModelEnv } from './agents/model-resolve.js';
import { FanoutMemory } from './agents/fanout-memory.js';
import { RuntimeCore } from './agents/runtime-core.js';
import { ApprovalBroker, nonInteractiveResolver, type ApprovalResolver } from './approvals/index.js';
import { McpRuntime } from './capabilities/mcp/mcp-runtime.js';
import type { TrustPrompt } from './capabilities/mcp/trust-gate.js';
import { SandboxGate, type WarningSink } from './capabilities/sandbox/gate.js';
import type { CadreConfig, LoadedConfig } from './config.js';
import { Scheduler } from './pool/scheduler.js';
import type { ThreadPool } from './pool/thread-pool.js';
import type { RecordsLocation } from './records/location.js';
import { openRecords } from './records/open.js';
import { asyncDispose } from './async-dispose.js';
import { loadAgents, readCassette, reloadAgents, type AgentOptions } from './runtime-agents.js';
import { projectDirOf, runtimeConfig } from './runtime-config.js';
import { startExecutor } from './runtime-executor.js';
import type { WorkerEntries } from './pool/worker-flags.js';
import { taskStarters } from './runtime-tasks.js';
import { terminalText } from './terminal-text.js';

/** How to create a runtime. Everything is optional. */
export interface RuntimeOptions {
  /** The project directory (default process.cwd()). */
  cwd?: string;
  /** Locates the user level (default os.homedir()). */
  home?: string;
  /** Environment for model keys (default process.env). */
  env?: ModelEnv;
  /**
   * Agents defined in code, keyed by name (`{ reviewer: { description, prompt, tools } }`), or the
   * same object as JSON text or a JSON file path. They take the `cli` place in precedence, and are
   * checked exactly like agent files: each problem names the agent and its field.
   */
  agents?: string | Record<string, AgentInput>;
  /**
   * Keep parsed agent definitions in this directory between starts (registryCacheDir gives the
   * user's cache directory); without it every agent file is parsed at every start.
   */
  registryCacheDir?: string;
  /** Overrides of config values. */
  concurrency?: number;
  isolation?: 'thread' | 'process';
  memoryLimitMb?: number;
  tokenBudget?: number;
  permissionMode?: CadreConfig['permissions']['defaultMode'];
  /** Default model of top-level runs. */
  model?: string;
  maxTurns?: number;
  /** Approval resolver; default: non-interactive (asks are denied with a clear message). */
  approvals?: ApprovalResolver;
  /** Record model exchanges to this cassette file / replay one. */
  record?: string;
  replay?: string;
  /**
   * More files that are cadre's records while this runtime runs (a batch's results file and its
   * lock): no file tool reads or changes them, and commands do not see them, in any mode.
   */
  recordFiles?: readonly string[];
  /**
   * Files agents may read but not change while this runtime runs (a batch's tasks file, which a
   * resumed batch reads again): protected paths, for file tools and commands alike, in any mode.
   */
  readOnlyFiles?: readonly string[];
  /** How long an idle worker thread is kept before it exits (default 30 s). */
  threadIdleTimeoutMs?: number;
  /**
   * Asked before MCP servers configured by the project start for the first time; answering true
   * trusts them (recorded in ~/.cadre/mcp-trust.json). Without it, untrusted project servers are
   * not started and runs are told the command that trusts them (`cadre mcp trust`).
   */
  mcpTrust?: TrustPrompt;
  /**
   * Where warnings for the user go (the sandbox being off, ignored project settings, a command not
   * run for want of a sandbox). Default: stderr, as `cadre: warning: ...`.
   */
  onWarning?: WarningSink;
}

/** One running task: its events, its result, and a way to stop it. */
export interface TaskHandle {
  /** The top-level run's agent id (its resume key). */
  agentId: string;
  /** Every event of the task's tree, each with agentId, parentId and depth. */
  events: AsyncIterable<AgentEvent>;
  /** The top-level run's output. Never rejects for run failures (see `status`). */
  result: Promise<TaskOutput>;
  /** Usage of the whole tree so far. */
  usage(): Usage;
  /** Cancels the task and its subagents. */
  stop(): void;
}

/** How a caller follows one task. */
export interface TaskOptions {
  /** Called with every event of the task's tree, as it happens. */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Offer the events as `handle.events` (default true). They are kept only for a caller that reads
   * `handle.events` as soon as `task()` resolves; false keeps none from the start (a caller that
   * follows them with `onEvent`).
   */
  events?: boolean;
  /** Aborting it cancels the task and its subagents: the run ends as `cancelled`. */
  signal?: AbortSignal;
}

/** How a caller runs one task to its end. */
export interface RunOptions {
  /** Aborting it cancels the task and its subagents: the run ends as `cancelled`. */
  signal?: AbortSignal;
  /** Called with every event of the task's tree, as it happens. */
  onEvent?: (event: AgentEvent) => void;
}

/** Options of a session. */
export interface SessionOptions {
  /** Every event of every run of the session (its turns, their subagents, background runs). */
  onEvent?: (event: AgentEvent) => void;
}

/**
 * A chat session: tasks that share one agent tree (token budget, todos, background runs, the
 * `maxSubagents` cap). A background run started in one task outlives it and can be collected or
 * stopped in a later one.
 */
export interface Session {
  readonly id: string;
  /**
   * Starts a task in the session; `handle.events` carries the session's events while it runs
   * (unless `events: false`, for a caller that follows them with the session's `onEvent`).
   */
  task(input: TaskInput, options?: Pick<TaskOptions, 'events' | 'signal'>): Promise<TaskHandle>;
  /** Cancels every run of the session still going, background runs included. */
  stop(): void;
}

/** The runtime. */
export interface Runtime {
  /** The agents loaded now (see `reloadAgents`). */
  readonly registry: RegistryResult;
  /** The approval queue every run's asks wait in (its pending requests, its session rules). */
  readonly approvals: ApprovalBroker;
  readonly config: CadreConfig;
  readonly cwd: string;
  /** Where this project's records are: transcripts, the audit log, the chat's sessions. */
  readonly records: RecordsLocation;
  /** What creating the runtime did that a person should hear of (records moved out of the project). */
  readonly notices: readonly string[];
  /** Starts a task. Rejects at once for invalid input or an unknown agent type. */
  task(input: TaskInput, options?: TaskOptions): Promise<TaskHandle>;
  /** Runs a task to its end. */
  run(input: TaskInput, options?: RunOptions): Promise<TaskOutput>;
  /** Opens a session (see `Session`). */
  session(options?: SessionOptions): Session;
  /** Reads every agent source again; later launches use what it found. */
  reloadAgents(): Promise<RegistryResult>;
  /** Runs many tasks with bounded concurrency; yields each result as its task ends. */
  batch(
    tasks: Iterable<BatchTask> | AsyncIterable<BatchTask>,
    options?: BatchOptions,
  ): AsyncIterable<BatchResult>;
  /** Cancels a run (and its subtree) by agent id. */
  stop(agentId: string): boolean;
  /**
   * Live counts: worker threads, runs holding a slot, runs waiting for one, runs not yet ended, and
   * threads started ahead for subagents, loaded and waiting for a run (`parked`).
   */
  stats(): { threads: number; active: number; queued: number; runs: number; parked: number };
  /** Cancels everything and shuts the pool down. */
  close(): Promise<void>;
  /** `close()`, for `await using runtime = await createRuntime()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Creates a runtime. */
export function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return startRuntime(options);
}

/**
 * Creates a runtime whose agents run in `workers` instead of the package's own worker bundles. Not
 * part of the package's API (src/index.ts), and no option or environment variable leads here:
 * cadre's own tests pass workers built around the real one that fail on purpose.
 */
export async function startRuntime(options: RuntimeOptions, workers?: WorkerEntries): Promise<Runtime> {
  const cwd = await projectDirOf(options);
  const home = options.home ?? os.homedir();
  const { loaded, config } = await runtimeConfig(cwd, home, options);
  // The pool's warm thread loads while the registry is read: the first run starts sooner.
  const { executor, pool } = startExecutor(config, options.threadIdleTimeoutMs, workers);
  let registry: RegistryResult;
  let cassette: string | undefined;
  let records: Awaited<ReturnType<typeof openRecords>>;
  try {
    registry = await loadAgents(cwd, home, loaded, options);
    cassette = await readCassette(options);
    // The registry cache is cadre's state too: a forged entry would be loaded as a parsed agent
    // file (a mode or tools its file never had), so no agent may read or write it.
    records = await openRecords(cwd, home, config, [
      options.record,
      options.replay,
      options.registryCacheDir,
      ...(options.recordFiles ?? []),
    ]);
  } catch (error) {
    await pool?.close();
    throw error;
  }
  // Only a runtime whose runs may start threads ahead reads (and later writes) the memory.
  const fanout =
    config.prestartLearn && config.prestartThreads > 0 && pool
      ? await FanoutMemory.open(records.location.fanoutFile)
      : undefined;
  const core = new RuntimeCore({
    cwd,
    home,
    config,
    registry,
    env: options.env ?? process.env,
    scheduler: new Scheduler(Math.max(1, config.concurrency), config.queueLimit ?? 10_000),
    executor,
    approvals: new ApprovalBroker(options.approvals ?? nonInteractiveResolver()),
    audit: records.audit,
    transcriptsDir: records.location.transcriptsDir,
    records: records.paths,
    options: {
      ...(options.model ? { model: options.model } : {}),
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
      ...(options.record ? { record: options.record } : {}),
    },
    cassette,
    mcp: mcpRuntime(cwd, home, config, options),
    sandbox: sandboxGate(config, records.paths, options),
    ...(fanout ? { fanout } : {}),
  });
  return runtimeFacade(core, { pool, loaded, records, agentOptions: options });
}

/** The MCP servers of a runtime, started on first use and shared by all its runs. */
function mcpRuntime(cwd: string, home: string, config: CadreConfig, options: RuntimeOptions): McpRuntime {
  return new McpRuntime({
    configured: config.mcpServers,
    env: options.env ?? process.env,
    cwd,
    home,
    sandboxMode: config.sandbox.mode,
    rules: {
      allow: config.permissions.allow,
      ask: config.permissions.ask,
      deny: config.permissions.deny,
    },
    ...(options.mcpTrust ? { trustPrompt: options.mcpTrust } : {}),
  });
}

/**
 * The command sandbox of a runtime, announced: the user hears which mode is in force, and what the
 * project's config tried to loosen and may not, on every start.
 */
function sandboxGate(
  config: CadreConfig,
  recordPaths: readonly string[],
  options: Pick<RuntimeOptions, 'onWarning'>,
): SandboxGate {
  const warn: WarningSink =
    options.onWarning ??
    ((message) =>
      void process.stderr.write(`cadre: warning: ${terminalText(message, { multiline: false })}\n`));
  for (const message of config.projectWarnings) warn(message);
  // cadre's records (every project's transcripts and audit logs, cassettes) are hidden from
  // commands like secrets, so no command reads or edits another run's records.
  const sandbox = new SandboxGate(config.sandbox, warn, recordPaths);
  sandbox.announce();
  return sandbox;
}

/** What the facade holds besides the core. */
interface FacadeParts {
  pool: ThreadPool | undefined;
  /** The config files the runtime started with (reloads fall back on them). */
  loaded: LoadedConfig;
  records: Awaited<ReturnType<typeof openRecords>>;
  /** What the first load of the agents was given; a reload is given the same. */
  agentOptions: AgentOptions;
}

/** The runtime as callers see it, over its core. */
function runtimeFacade(core: RuntimeCore, parts: FacadeParts): Runtime {
  const { pool, records } = parts;
  const { task, session } = taskStarters(core);
  const close = async () => {
    await core.cancelAll();
    await core.mcp.close();
    await core.flushCassette();
    await core.fanout?.flush();
    await core.audit?.close();
    await pool?.close();
  };
  return {
    get registry() {
      return core.registry;
    },
    approvals: core.approvals,
    config: core.config,
    cwd: core.cwd,
    records: records.location,
    notices: records.notices,
    task,
    session,
    async reloadAgents() {
      const next = await reloadAgents(core.cwd, core.home, parts.loaded, parts.agentOptions);
      core.replaceRegistry(next);
      return next;
    },
    run: async (input, runOptions) => (await task(input, { ...runOptions, events: false })).result,
    batch: (tasks, batchOptions) =>
      runBatch({ task }, tasks, { concurrency: Math.max(1, core.config.concurrency), ...batchOptions }),
    stats: () => ({
      threads: pool?.threads().length ?? 0,
      active: core.scheduler.running,
      queued: core.scheduler.queued,
      runs: core.running.size,
      parked: pool?.parkedThreads.ready ?? 0,
    }),
    stop(agentId) {
      const node = core.running.get(agentId);
      node?.cancel.abort(cancelReason('user_cancelled'));
      return node !== undefined;
    },
    close,
    [asyncDispose]: close,
  };
}
