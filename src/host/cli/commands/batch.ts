// `cadre batch <tasks.jsonl|tasks.yaml> --out results.jsonl`: runs every task with bounded
// concurrency, appends one JSON line per task the moment it ends, resumes by skipping ids already
// in --out, and stops cleanly on Ctrl-C, SIGTERM or SIGHUP. This file reads the flags and decides
// where the batch runs (a supervised child, or here); cli/batch-session.ts runs it.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { TaskStatus } from '../../../shared/task.js';
import { lockResults } from '../../batch/out-lock.js';
import { exitWithSupervisor, superviseBatch, SUPERVISED_ENV } from '../batch-supervisor.js';
import { runBatchSession, type BatchSettings, repairAndWarn } from '../batch-session.js';
import { globalOptions, UsageError, type CliContext } from '../context.js';
import { addRunFlags, modelFlag, permissionMode, rangedFlag, type RunFlags } from './run-options.js';

interface BatchFlags extends RunFlags {
  out?: string;
  retry?: string;
  allowFailures?: boolean;
}

/** Registers `cadre batch`. */
export function registerBatchCommand(program: Command, ctx: CliContext): void {
  addRunFlags(
    program
      .command('batch')
      .description('run many agent tasks from a JSONL or YAML file; one result line per task in --out')
      .argument(
        '<tasks>',
        'tasks file: JSONL ({"id","agent","prompt",...} per line) or a YAML list; - reads JSONL from stdin',
      ),
  )
    .option('--out <file>', 'results file (JSONL); re-running with the same file resumes')
    .option('--concurrency <n>', 'tasks running at once, 1-1024 (default: config concurrency, 16)')
    .option('--retry <statuses>', 'comma list of statuses to run again, e.g. failed,timeout,crashed')
    .option('--allow-failures', 'exit 0 even when some tasks did not complete')
    .action(async (file: string, flags: BatchFlags, command: Command) => {
      const supervised = ctx.env[SUPERVISED_ENV] === '1';
      if (supervised) exitWithSupervisor();
      const settings = await settingsFrom(file, flags, ctx);
      const { outPath, tasksPath, fromStdin } = settings;
      // Supervision runs the batch in a child that reads the tasks file itself. A pipe or a process
      // substitution (`<(...)`) can be read once only, and an unreadable file is reported here:
      // those run in this process.
      const regular =
        !fromStdin &&
        (await stat(tasksPath).then(
          (st) => st.isFile(),
          () => false,
        ));
      if (supervised) {
        ctx.exitCode = await runBatchSession(command, ctx, settings, { supervised: true });
        return;
      }
      // One batch per results file: this process holds the lock for the whole invocation.
      // The message quotes the lock file, which anyone who could write beside --out may have written.
      const { clean } = await globalOptions(command, ctx);
      const lock = await lockResults(outPath).catch((error: unknown) => {
        ctx.io.stderr(`batch: ${clean.line((error as Error).message)}\n`);
        return undefined;
      });
      if (lock === undefined) {
        ctx.exitCode = 1;
        return;
      }
      try {
        if (ctx.relaunch && regular) {
          await repairAndWarn(outPath, ctx.io);
          ctx.exitCode = await superviseBatch({ ...ctx.relaunch, env: ctx.env, outPath, io: ctx.io });
        } else ctx.exitCode = await runBatchSession(command, ctx, settings, { supervised: false });
      } finally {
        await lock.release();
      }
    });
}

/** The batch's flags, checked: every mistake is a usage error naming the flag. */
async function settingsFrom(file: string, flags: BatchFlags, ctx: CliContext): Promise<BatchSettings> {
  if (!flags.out) throw new UsageError('batch: --out <file> is required');
  const retry = new Set<string>();
  for (const s of (flags.retry ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (!TaskStatus.safeParse(s).success)
      throw new UsageError(`--retry: unknown status "${s}" (statuses: ${TaskStatus.options.join(', ')})`);
    retry.add(s);
  }
  // `-` (or /dev/stdin) reads the tasks from standard input, whatever it is (pipe or socket).
  const fromStdin = file === '-' || file === '/dev/stdin';
  const tasksPath = fromStdin ? 'stdin.jsonl' : path.resolve(ctx.processCwd, file);
  const outPath = path.resolve(ctx.processCwd, flags.out);
  await checkOutPath(outPath, fromStdin ? undefined : tasksPath);
  const timeout = rangedFlag('--timeout', flags.timeout, 'timeout');
  const maxTurns = rangedFlag('--max-turns', flags.maxTurns, 'maxTurns');
  const concurrency = rangedFlag('--concurrency', flags.concurrency, 'concurrency');
  const model = modelFlag(flags.model);
  const mode = permissionMode(flags.permissionMode);
  return {
    file,
    flags,
    fromStdin,
    tasksPath,
    outPath,
    retry,
    ...(timeout !== undefined ? { timeout } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(mode !== undefined ? { permissionMode: mode } : {}),
    json: flags.json === true,
    allowFailures: flags.allowFailures === true,
  };
}

/** `--out` must be a regular file (or not exist yet) in a directory that exists, and not the tasks file. */
async function checkOutPath(outPath: string, tasksPath: string | undefined): Promise<void> {
  const st = await stat(outPath).catch(() => undefined);
  if (st?.isDirectory())
    throw new UsageError(
      `--out: ${outPath} is a directory; give a file path such as ${path.join(outPath, 'results.jsonl')}`,
    );
  if (st !== undefined && !st.isFile()) throw new UsageError(`--out: ${outPath} is not a regular file`);
  if (st === undefined) {
    const dir = path.dirname(outPath);
    const parent = await stat(dir).catch(() => undefined);
    if (!parent?.isDirectory()) throw new UsageError(`--out: the directory ${dir} does not exist`);
  }
  if (tasksPath !== undefined && path.resolve(tasksPath) === outPath)
    throw new UsageError(`--out: ${outPath} is the tasks file; results go to a file of their own`);
}
