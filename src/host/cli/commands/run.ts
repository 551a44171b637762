// `cadre run <agent> <prompt...>`: one agent run; prints its final text, or with --json one
// TaskOutput object. Progress goes to stderr. Exit 0 only when the run completed.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { UsageError } from '../context.js';
import { terminalSession } from '../terminal-session.js';
import { progressPrinter } from './progress.js';
import { addRunFlags, positive, runtimeFromFlags, type RunFlags } from './run-options.js';

/** Registers `cadre run`. */
export function registerRunCommand(program: Command, ctx: CliContext): void {
  addRunFlags(
    program
      .command('run')
      .description('run one agent on a task and print its final report')
      .argument('<agent>', 'agent type (see `cadre agents list`)')
      .argument('<prompt...>', 'the task'),
  )
    .option('--record <file>', 'record every model exchange to a cassette file')
    .option('--replay <file>', 'replay a recorded cassette instead of calling a model')
    .action(async (agent: string, words: string[], flags: RunFlags, command: Command) => {
      const prompt = words.join(' ').trim();
      if (!prompt) throw new UsageError('run: the prompt is empty');
      const timeout = positive('--timeout', flags.timeout);
      const maxTurns = positive('--max-turns', flags.maxTurns, true);
      // On a terminal, asks go to a prompt on stderr; elsewhere they are denied as before.
      const term = terminalSession(ctx, { tree: false });
      const io = term?.io ?? ctx.io;
      const runtime = await runtimeFromFlags(command, ctx, flags, term?.approvals).catch((error: unknown) => {
        term?.close();
        throw error;
      });
      term?.attach(runtime.approvals);
      // Ctrl-C cancels the run (recorded as cancelled) and exits 130, as a shell expects.
      let interrupted = false;
      let stop: () => void = () => undefined;
      const onSigint = () => {
        interrupted = true;
        stop();
      };
      process.once('SIGINT', onSigint);
      try {
        const handle = await runtime.task(
          {
            subagent_type: agent,
            prompt,
            ...(timeout ? { timeout } : {}),
            ...(maxTurns ? { max_turns: maxTurns } : {}),
          },
          { onEvent: progressPrinter(io) },
        );
        stop = handle.stop;
        if (interrupted) stop();
        const output = await handle.result;
        // The prompt's region goes before the result is printed: erasing it later would erase that.
        term?.close();
        if (flags.json) ctx.io.stdout(`${JSON.stringify(output, null, 2)}\n`);
        else {
          ctx.io.stdout(output.result.endsWith('\n') ? output.result : `${output.result}\n`);
          if (output.status !== 'completed')
            ctx.io.stderr(`cadre: run ${output.status}${output.error ? `: ${output.error.message}` : ''}\n`);
        }
        ctx.exitCode = interrupted ? 130 : output.status === 'completed' ? 0 : 1;
      } finally {
        term?.close();
        process.off('SIGINT', onSigint);
        await runtime.close();
      }
    });
}
