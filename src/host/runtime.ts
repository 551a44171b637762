// createRuntime(): the library facade. Loads config and the registry once, owns the pool and the
// scheduler, and runs tasks: each an async iterable of events plus one TaskOutput.
import os from 'node:os';
import path from 'node:path';
import { realpath } from 'node:fs/promises';
import type { RegistryResult } from '../shared/agent-definition.js';
import type { AgentEvent } from '../shared/events.js';
import { CadreError } from '../shared/errors.js';
import type { WorkerRunSpec } from '../shared/run-spec.js';
import { TaskInput, type TaskOutput, type Usage } from '../shared/task.js';
import { formatZodError } from '../shared/zod-format.js';
import { EventChannel } from './agents/event-channel.js';
import { runBatch, type BatchOptions, type BatchResult } from './batch/run-batch.js';
import type { BatchTask } from './batch/task-file.js';
import { cancelReason, launch } from './agents/launcher.js';
import type { ModelEnv } from './agents/model-resolve.js';
import { RuntimeCore } from './agents/runtime-core.js';
import { AgentTree } from './agents/tree.js';
import { ApprovalBroker, nonInteractiveResolver, type ApprovalResolver } from './approvals/index.js';
import { createAuditLog } from './capabilities/audit.js';
import { SandboxGate, type WarningSink } from './capabilities/sandbox/gate.js';
import { loadConfig, type CadreConfig } from './config.js';
import { processExecutor, threadExecutor, type Executor } from './pool/executor.js';
import { Scheduler } from './pool/scheduler.js';
import { ThreadPool } from './pool/thread-pool.js';
import { formatIssue, loadRegistry } from './registry/index.js';
import { readFile } from 'node:fs/promises';

/** How to create a runtime. Everything is optional. */
export interface RuntimeOptions {
  /** The project directory (default process.cwd()). */
  cwd?: string;
  /** Locates the user level (default os.homedir()). */
  home?: string;
  /** Environment for model keys (default process.env). */
  env?: ModelEnv;
  /** The `--agents` JSON (inline or a file). */
  agents?: string;
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
  /** How long an idle worker thread is kept before it exits (default 30 s). */
  threadIdleTimeoutMs?: number;
  /** Kernel tests only: honour `fault:<kind>` prompts. */
  allowFaultInjection?: boolean;
  /**
   * Where warnings for the user go (the sandbox being off, ignored project settings, a command not
   * run for want of a sandbox). Default: stderr, as `cadre: warning: ...`.
   */
  onWarning?: WarningSink;
}

/** One running task: its events, its result, and a way to stop it. */
export interface TaskHandle {
  /** Every event of the task's tree, each with agentId, parentId and depth. */
  events: AsyncIterable<AgentEvent>;
  /** The top-level run's output. Never rejects for run failures (see `status`). */
  result: Promise<TaskOutput>;
  /** Usage of the whole tree so far. */
  usage(): Usage;
  /** Cancels the task and its subagents. */
  stop(): void;
}

/** The runtime. */
export interface Runtime {
  readonly registry: RegistryResult;
  readonly config: CadreConfig;
  readonly cwd: string;
  /** Starts a task. Rejects at once for invalid input or an unknown agent type. */
  task(input: TaskInput, options?: { onEvent?: (event: AgentEvent) => void }): Promise<TaskHandle>;
  /** Runs a task to its end. */
  run(input: TaskInput): Promise<TaskOutput>;
  /** Runs many tasks with bounded concurrency; yields each result as its task ends. */
  batch(
    tasks: Iterable<BatchTask> | AsyncIterable<BatchTask>,
    options?: BatchOptions,
  ): AsyncIterable<BatchResult>;
  /** Cancels a run (and its subtree) by agent id. */
  stop(agentId: string): boolean;
  /** Live counts: worker threads, runs holding a slot, runs waiting for one, runs not yet ended. */
  stats(): { threads: number; active: number; queued: number; runs: number };
  /** Cancels everything and shuts the pool down. */
  close(): Promise<void>;
}

/** Creates a runtime. */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const cwd = await realpath(path.resolve(options.cwd ?? process.cwd())).catch(() => {
    throw new CadreError('invalid_input', `--cwd: directory ${options.cwd ?? process.cwd()} does not exist`);
  });
  const home = options.home ?? os.homedir();
  const loaded = await loadConfig({ cwd, home });
  // A config that does not parse may be missing deny rules: refuse to run rather than guess.
  if (loaded.errors.length > 0)
    throw new CadreError(
      'invalid_input',
      `invalid configuration:\n${loaded.errors.map(formatIssue).join('\n')}`,
    );
  const config: CadreConfig = {
    ...loaded.merged,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.isolation ? { isolation: options.isolation } : {}),
    ...(options.memoryLimitMb ? { memoryLimitMb: options.memoryLimitMb } : {}),
    ...(options.tokenBudget ? { tokenBudget: options.tokenBudget } : {}),
    permissions: {
      ...loaded.merged.permissions,
      ...(options.permissionMode ? { defaultMode: options.permissionMode } : {}),
    },
  };
  const concurrency = Math.max(1, config.concurrency);
  const memoryLimitMb = config.memoryLimitMb ?? 512;
  let pool: ThreadPool | undefined;
  let executor: Executor;
  if (config.isolation === 'process') executor = processExecutor({ memoryLimitMb });
  else {
    pool = new ThreadPool({
      // Active runs hold scheduler slots (at most `concurrency`); a parent waiting on its children
      // lends its slot but keeps its thread. Serving the deepest waiters first keeps the waiting
      // parents at each depth to at most `concurrency`, so this many threads can never deadlock.
      maxThreads: concurrency * (config.maxDepth + 1),
      // One warm thread: more would compete for the CPU with the first run's start.
      minThreads: 1,
      memoryLimitMb,
      ...(options.threadIdleTimeoutMs ? { idleTimeoutMs: options.threadIdleTimeoutMs } : {}),
    });
    executor = threadExecutor(pool);
  }
  // The pool's warm thread loads while the registry is read: the first run starts sooner.
  let registry: RegistryResult;
  let cassette: string | undefined;
  try {
    registry = await loadRegistry({ cwd, home, cliAgents: options.agents, config: loaded });
    cassette = options.replay
      ? await readFile(options.replay, 'utf8').catch((error: NodeJS.ErrnoException) => {
          throw new CadreError(
            'invalid_input',
            `--replay: cannot read ${options.replay}: ${error.code ?? error.message}`,
          );
        })
      : undefined;
  } catch (error) {
    await pool?.close();
    throw error;
  }
  const transcriptsDir = config.transcriptsDir ?? path.join(cwd, '.cadre', 'transcripts');
  const sandbox = new SandboxGate(
    config.sandbox,
    options.onWarning ?? ((message) => void process.stderr.write(`cadre: warning: ${message}\n`)),
    [
      transcriptsDir,
      path.join(cwd, '.cadre', 'audit.jsonl'),
      ...(options.record ? [path.resolve(cwd, options.record)] : []),
    ],
  );
  sandbox.announce();
  const core = new RuntimeCore(
    cwd,
    home,
    config,
    registry,
    options.env ?? process.env,
    new Scheduler(concurrency, config.queueLimit ?? 10_000),
    executor,
    new ApprovalBroker(options.approvals ?? nonInteractiveResolver()),
    await createAuditLog(path.join(cwd, '.cadre', 'audit.jsonl')).catch(() => undefined),
    transcriptsDir,
    {
      ...(options.model ? { model: options.model } : {}),
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
      ...(options.record ? { record: options.record } : {}),
      ...(options.allowFaultInjection ? { allowFaultInjection: true } : {}),
    },
    cassette,
    faultFromPrompt,
    sandbox,
  );
  let treeSeq = 0;

  const task: Runtime['task'] = async (raw, taskOptions) => {
    const parsed = TaskInput.safeParse(raw);
    if (!parsed.success)
      throw new CadreError('invalid_input', formatZodError(parsed.error, 'task').join('; '));
    const channel = new EventChannel<AgentEvent>();
    const listeners = [(event: AgentEvent) => channel.push(event)];
    if (taskOptions?.onEvent) listeners.push(taskOptions.onEvent);
    const tree = new AgentTree(`tree-${++treeSeq}`, config.tokenBudget, listeners);
    const { node } = await launch(core, parsed.data, tree);
    const result = node.done.then((output) => {
      channel.close();
      return output;
    });
    return {
      events: channel,
      result,
      usage: () => tree.usage,
      stop: () => node.cancel.abort(cancelReason('user_cancelled')),
    };
  };

  return {
    registry,
    config,
    cwd,
    task,
    run: async (input) => (await task(input)).result,
    batch: (tasks, batchOptions) => runBatch({ task }, tasks, { concurrency, ...batchOptions }),
    stats: () => ({
      threads: pool?.threads().length ?? 0,
      active: core.scheduler.running,
      queued: core.scheduler.queued,
      runs: core.running.size,
    }),
    stop(agentId) {
      const node = core.running.get(agentId);
      node?.cancel.abort(cancelReason('user_cancelled'));
      return node !== undefined;
    },
    async close() {
      await core.cancelAll();
      await core.flushCassette();
      await core.audit?.close();
      await pool?.close();
    },
  };
}

/** Kernel tests inject faults with a prompt of the form `fault:<kind>`. */
function faultFromPrompt(input: TaskInput): WorkerRunSpec['fault'] | undefined {
  const match = /^fault:(throw|exit|oom-small|oom-array|oom-map|spin|hang)\b/.exec(input.prompt);
  return match ? (match[1] as WorkerRunSpec['fault']) : undefined;
}
