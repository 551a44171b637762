// One `cadre batch` run over a results file this invocation holds: read and check the tasks, plan
// what runs (batch/plan.ts), run it, append each result as it ends, and close everything however
// it stops — done, a stop signal (cancel, flush, exit 128 + n), or a results file that cannot be
// written (stop launching, cancel, close, exit 1) — with a summary of what was written.
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import type { PermissionMode } from '../../shared/task.js';
import { AgentNames } from '../../shared/agent-name.js';
import { BatchTally, progressReporter } from '../batch/progress.js';
import { planBatch, type BatchPlan } from '../batch/plan.js';
import { finishedIds, repairResults, ResultsWriter, resultsSince } from '../batch/results-file.js';
import type { BatchResult } from '../batch/run-batch.js';
import { parseTaskFile, type TaskFile } from '../batch/task-file.js';
import type { Runtime } from '../runtime.js';
import { crashesFromEnv, noteTask, SINCE_ENV } from './batch-supervisor.js';
import { globalOptions, inertJson, UsageError, type CliContext, type CliIO } from './context.js';
import { readStdinText } from './prompt-input.js';
import { onStopSignals } from './stop-signals.js';
import { runtimeFromFlags, type RunFlags } from './commands/run-options.js';

/** The largest tasks file read (a JSON string cannot be much longer). */
const MAX_TASKS_FILE_BYTES = 256 * 1024 * 1024;

/** A batch's settings, from its flags. */
export interface BatchSettings {
  /** The tasks argument as given (for messages). */
  file: string;
  flags: RunFlags;
  fromStdin: boolean;
  tasksPath: string;
  outPath: string;
  retry: ReadonlySet<string>;
  timeout?: number;
  maxTurns?: number;
  concurrency?: number;
  model?: string;
  permissionMode?: PermissionMode;
  json: boolean;
  allowFailures: boolean;
}

/** Moves lines that are not results out of the results file, saying so. */
export async function repairAndWarn(outPath: string, io: CliIO): Promise<void> {
  const report = await repairResults(outPath);
  if (report.moved.length > 0)
    io.stderr(
      `batch: ${report.moved.length === 1 ? `line ${report.moved[0]}` : `${report.moved.length} lines (${report.moved.slice(0, 5).join(', ')}${report.moved.length > 5 ? ', ...' : ''})`} of ${outPath} ${report.moved.length === 1 ? 'was not a result' : 'were not results'} (cut short by a kill or a full disk); moved to ${report.tornPath}. Their tasks run again.\n`,
    );
}

async function readTasks(settings: BatchSettings): Promise<string> {
  if (settings.fromStdin) return readStdinText(process.stdin, MAX_TASKS_FILE_BYTES);
  const { tasksPath } = settings;
  const fail = (why: string) => new UsageError(`batch: cannot read tasks file ${tasksPath}: ${why}`);
  const st = await stat(tasksPath).catch((error: NodeJS.ErrnoException) => {
    throw fail(error.code ?? error.message);
  });
  if (st.isDirectory()) throw fail('it is a directory');
  if (st.size > MAX_TASKS_FILE_BYTES)
    throw fail(
      `it is ${st.size} bytes, over the ${MAX_TASKS_FILE_BYTES}-byte limit; split it into several batches`,
    );
  return readFile(tasksPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw fail(error.code ?? error.message);
  });
}

/** Why no task of the file can run, for the exit-2 message. */
function noTaskReason(settings: BatchSettings, content: string, parsed: TaskFile): string {
  if (content.trim() === '') return `${settings.file} is empty`;
  if (parsed.issues.length > 0)
    return `every entry of ${settings.file} was skipped (${parsed.issues.length} problem(s), listed above)`;
  return `${settings.file} holds no tasks`;
}

/** Runs the batch described by `settings`; resolves to the exit code. */
export async function runBatchSession(
  command: Command,
  ctx: CliContext,
  settings: BatchSettings,
  mode: { supervised: boolean },
): Promise<number> {
  const { outPath } = settings;
  const since = mode.supervised ? Number(ctx.env[SINCE_ENV] ?? NaN) : NaN;
  const restarted = Number.isInteger(since) && since >= 0;
  // The supervisor repaired the file before the first child; a restart finds the crash's torn line.
  if (!mode.supervised || restarted) await repairAndWarn(outPath, ctx.io);
  const content = await readTasks(settings);
  const { clean } = await globalOptions(command, ctx);
  // A batch never stops to ask whether to trust project MCP servers: untrusted ones are refused.
  const runtime = await runtimeFromFlags(
    command,
    ctx,
    {
      ...settings.flags,
      ...(settings.concurrency ? { concurrency: String(settings.concurrency) } : {}),
    },
    // The results file holds every other task's result: no task's agent may read or forge it. The
    // tasks file is read again when a crashed batch resumes: no task's agent may add tasks to it.
    {
      askTrust: false,
      recordFiles: [outPath, `${outPath}.lock`, `${outPath}.torn`],
      ...(settings.fromStdin ? {} : { readOnlyFiles: [settings.tasksPath] }),
    },
  );
  try {
    const parsed = parseTaskFile(
      settings.tasksPath,
      content,
      new AgentNames(runtime.registry.agents.map((a) => a.name)),
    );
    // A restarted batch said this already.
    if (!restarted)
      for (const issue of parsed.issues)
        ctx.io.stderr(`${settings.file}:${issue.line}: skipped: ${clean.line(issue.message)}\n`);
    if (parsed.tasks.length === 0) {
      ctx.io.stderr(`batch: no task to run: ${noTaskReason(settings, content, parsed)}\n`);
      return 2;
    }
    const resumed = restarted ? await resultsSince(outPath, since) : [];
    const finished = await finishedIds(outPath);
    const plan = planBatch({
      tasks: parsed.tasks,
      finished,
      resumed: new Set(resumed.map((r) => r.id)),
      retry: settings.retry,
      crashes: mode.supervised ? crashesFromEnv(ctx.env) : {},
    });
    return await execute(ctx, settings, runtime, { plan, parsed, resumed, finished });
  } finally {
    await runtime.close();
  }
}

interface Planned {
  plan: BatchPlan;
  parsed: TaskFile;
  resumed: BatchResult[];
  finished: ReadonlyMap<string, string>;
}

/** Prints the closing summary (and with --json the summary object); returns the exit code. */
function summarizer(ctx: CliContext, settings: BatchSettings, planned: Planned, tally: BatchTally) {
  return (exitCode: number, stopped?: string): number => {
    if (tally.total > 0) ctx.io.stderr(`${tally.summary()}\n  results: ${settings.outPath}\n`);
    if (settings.json) {
      const summary = tally.toSummary({
        alreadyDone: planned.plan.alreadyDone,
        invalidLines: planned.parsed.issues.length,
        results: settings.outPath,
        exitCode,
        ...(stopped !== undefined ? { stopped } : {}),
      });
      ctx.io.stdout(`${inertJson(JSON.stringify(summary, null, 2))}\n`);
    }
    return exitCode;
  };
}

/** Appends results; the first failed write aborts the batch (`stop`), later results are counted as lost. */
function resultRecorder(
  ctx: CliContext,
  writer: ResultsWriter,
  stop: () => void,
  onWritten: (result: BatchResult) => void,
) {
  const state = { failure: undefined as Error | undefined, unwritten: 0 };
  const record = async (result: BatchResult) => {
    if (state.failure) return void state.unwritten++;
    try {
      await writer.append(result);
    } catch (error) {
      state.failure = error as Error;
      state.unwritten++;
      ctx.io.stderr(
        `\nbatch: ${state.failure.message} — stopping: no new task starts, running tasks are cancelled\n`,
      );
      stop();
      return;
    }
    noteTask('ended', result.id);
    onWritten(result);
  };
  return { record, state };
}

/** Runs the planned tasks: an earlier crash's suspects one at a time first, then the rest. */
async function runPhases(
  runtime: Runtime,
  plan: BatchPlan,
  settings: BatchSettings,
  signal: AbortSignal,
  record: (result: BatchResult) => Promise<void>,
): Promise<void> {
  for (const result of plan.gaveUp) await record(result);
  const options = {
    signal,
    ...(settings.timeout ? { timeout: settings.timeout } : {}),
    ...(settings.maxTurns ? { maxTurns: settings.maxTurns } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.permissionMode ? { permissionMode: settings.permissionMode } : {}),
    onStart: (task: { id: string }) => noteTask('started', task.id),
  };
  // Suspects run alone: if one takes the process down again, it alone is blamed.
  for (const [tasks, concurrency] of [
    [plan.alone, 1],
    [plan.rest, settings.concurrency],
  ] as const) {
    if (signal.aborted || tasks.length === 0) continue;
    for await (const result of runtime.batch(tasks, { ...options, ...(concurrency ? { concurrency } : {}) }))
      await record(result);
  }
}

/** Runs the plan: writes results, watches signals and write errors, prints the summary. */
async function execute(
  ctx: CliContext,
  settings: BatchSettings,
  runtime: Runtime,
  planned: Planned,
): Promise<number> {
  const { plan, parsed, resumed } = planned;
  const toRun = plan.alone.length + plan.rest.length;
  const tally = new BatchTally(toRun + plan.gaveUp.length + resumed.length);
  for (const result of resumed) tally.add(result);
  const statuses = new Map<string, string>(planned.finished);
  const summarize = summarizer(ctx, settings, planned, tally);
  const outcome = () =>
    parsed.tasks.every((t) => statuses.get(t.id) === 'completed') || settings.allowFailures ? 0 : 1;
  if (toRun === 0 && plan.gaveUp.length === 0 && resumed.length === 0) {
    const all = [...statuses.values()];
    const counts = [...new Set(all)].map((s) => `${s} ${all.filter((v) => v === s).length}`);
    const code = outcome();
    ctx.io.stderr(
      `batch: nothing to do: ${plan.alreadyDone} tasks already have results in ${settings.outPath} (${counts.join(', ')})` +
        `${code === 0 ? '' : '; use --retry with their statuses to run them again'}\n`,
    );
    return summarize(code);
  }
  if (plan.alreadyDone > 0)
    ctx.io.stderr(`batch: ${plan.alreadyDone} task(s) already in ${settings.outPath}; running ${toRun}\n`);

  const writer = await ResultsWriter.open(settings.outPath);
  const reporter = progressReporter(tally, process.stderr);
  const controller = new AbortController();
  const signals = onStopSignals((signal) => {
    ctx.io.stderr(
      `\nbatch: ${signal === 'SIGINT' ? 'interrupted' : `received ${signal}`} — cancelling running tasks and saving results (again to quit at once)\n`,
    );
    controller.abort();
  });
  const { record, state } = resultRecorder(
    ctx,
    writer,
    () => controller.abort(),
    (result) => {
      statuses.set(result.id, result.status);
      tally.add(result);
      reporter.tick();
    },
  );
  try {
    await runPhases(runtime, plan, settings, controller.signal, record);
  } finally {
    reporter.stop();
    signals.dispose();
    await writer.close();
  }
  if (state.failure) {
    ctx.io.stderr(
      `batch: stopped: ${state.failure.message}. ${state.unwritten} result(s) could not be written; those tasks run again when you resume with the same --out.\n`,
    );
    return summarize(1, state.failure.message);
  }
  if (signals.received) return summarize(signals.exitCode ?? 130, signals.received);
  return summarize(outcome());
}
