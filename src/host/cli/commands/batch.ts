// `cadre batch <tasks.jsonl|tasks.yaml> --out results.jsonl`: runs every task with bounded
// concurrency, appends one JSON line per task the moment it ends, resumes by skipping ids already
// in --out, and survives Ctrl-C (first: cancel and flush, exit 130; second: exit at once).
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { TaskStatus } from '../../../shared/task.js';
import { BatchTally, progressReporter } from '../../batch/progress.js';
import { finishedIds, ResultsWriter, resultsSince } from '../../batch/results-file.js';
import { parseTaskFile } from '../../batch/task-file.js';
import { exitWithSupervisor, SINCE_ENV, superviseBatch, SUPERVISED_ENV } from '../batch-supervisor.js';
import { UsageError, type CliContext } from '../context.js';
import { addRunFlags, permissionMode, positive, runtimeFromFlags, type RunFlags } from './run-options.js';

interface BatchFlags extends RunFlags {
  out?: string;
  retry?: string;
  allowFailures?: boolean;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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
    .option('--concurrency <n>', 'tasks running at once (default: config concurrency, 16)')
    .option('--retry <statuses>', 'comma list of statuses to run again, e.g. failed,timeout,crashed')
    .option('--allow-failures', 'exit 0 even when some tasks did not complete')
    .action(async (file: string, flags: BatchFlags, command: Command) => {
      const supervised = ctx.env[SUPERVISED_ENV] === '1';
      if (supervised) exitWithSupervisor();
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
      const timeout = positive('--timeout', flags.timeout);
      const maxTurns = positive('--max-turns', flags.maxTurns, true);
      const concurrency = positive('--concurrency', flags.concurrency, true);
      const mode = permissionMode(flags.permissionMode);
      // `-` (or /dev/stdin) reads the tasks from standard input, whatever it is (pipe or socket).
      const fromStdin = file === '-' || file === '/dev/stdin';
      const tasksPath = fromStdin ? 'stdin.jsonl' : path.resolve(ctx.processCwd, file);
      const outPath = path.resolve(ctx.processCwd, flags.out);
      // Supervision runs the batch in a child that reads the tasks file itself. A pipe or a process
      // substitution (`<(...)`) can be read once only, and an unreadable file is reported here:
      // those run in this process.
      const regular =
        !fromStdin &&
        (await stat(tasksPath).then(
          (st) => st.isFile(),
          () => false,
        ));
      if (ctx.relaunch && regular && !supervised) {
        ctx.exitCode = await superviseBatch({ ...ctx.relaunch, env: ctx.env, outPath, io: ctx.io });
        return;
      }
      const content = fromStdin
        ? await readStdin()
        : await readFile(tasksPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
            throw new UsageError(
              `batch: cannot read tasks file ${tasksPath}: ${error.code ?? error.message}`,
            );
          });
      // After a restart: what this invocation already finished is done, whatever --retry says.
      const since = supervised ? Number(ctx.env[SINCE_ENV] ?? NaN) : NaN;
      const restarted = Number.isInteger(since) && since >= 0;
      const resumed = new Map((restarted ? await resultsSince(outPath, since) : []).map((r) => [r.id, r]));
      const runtime = await runtimeFromFlags(
        command,
        ctx,
        { ...flags, ...(flags.concurrency ? { concurrency: flags.concurrency } : {}) },
        { askTrust: false },
      );
      const parsed = parseTaskFile(tasksPath, content, new Set(runtime.registry.agents.map((a) => a.name)));
      // A restarted batch said this already.
      if (!restarted)
        for (const issue of parsed.issues)
          ctx.io.stderr(`${file}:${issue.line}: skipped: ${issue.message}\n`);
      const finished = await finishedIds(outPath);
      const todo = parsed.tasks.filter((t) => {
        if (resumed.has(t.id)) return false;
        const status = finished.get(t.id);
        return status === undefined || retry.has(status);
      });
      const skipped = parsed.tasks.length - todo.length - resumed.size;
      if (skipped > 0)
        ctx.io.stderr(`batch: ${skipped} task(s) already in ${flags.out}; running ${todo.length}\n`);

      const writer = await ResultsWriter.open(outPath);
      const tally = new BatchTally(todo.length + resumed.size);
      for (const result of resumed.values()) tally.add(result);
      const reporter = progressReporter(tally, process.stderr);
      const controller = new AbortController();
      let interrupts = 0;
      const onSigint = () => {
        interrupts++;
        if (interrupts === 1) {
          ctx.io.stderr(
            '\nbatch: interrupted — cancelling running tasks and saving results (Ctrl-C again to quit at once)\n',
          );
          controller.abort();
        } else process.exit(130);
      };
      process.on('SIGINT', onSigint);
      const statuses = new Map(finished);
      try {
        for await (const result of runtime.batch(todo, {
          signal: controller.signal,
          ...(concurrency ? { concurrency } : {}),
          ...(timeout ? { timeout } : {}),
          ...(maxTurns ? { maxTurns } : {}),
          ...(flags.model ? { model: flags.model } : {}),
          ...(mode ? { permissionMode: mode } : {}),
        })) {
          await writer.append(result);
          statuses.set(result.id, result.status);
          tally.add(result);
          reporter.tick();
        }
      } finally {
        reporter.stop();
        process.off('SIGINT', onSigint);
        await writer.close();
        await runtime.close();
      }
      ctx.io.stderr(`${tally.summary()}\n  results: ${outPath}\n`);
      const allCompleted = parsed.tasks.every((t) => statuses.get(t.id) === 'completed');
      ctx.exitCode = controller.signal.aborted ? 130 : allCompleted || flags.allowFailures ? 0 : 1;
    });
}
