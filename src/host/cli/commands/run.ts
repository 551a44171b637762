// `cadre run <agent> <prompt...>`: one agent run; prints its final text, or with --json one
// TaskOutput object (plus `refused`). Progress goes to stderr; on a terminal, asks are answered at a
// prompt drawn there (terminal-session.ts), elsewhere denied. `-` as the prompt reads it from
// standard input. Exit 0 only when the run completed and every write and command it tried was
// carried out (see runExitCode); Ctrl-C, SIGTERM and SIGHUP cancel it and exit 130, 143, 129.
import type { Command } from 'commander';
import type { TaskOutput } from '../../../shared/task.js';
import { EffectTally, refusalNote, type EffectCounts } from '../../agents/effect-tally.js';
import type { CliContext } from '../context.js';
import { globalOptions, UsageError, writeJson, writeLong } from '../context.js';
import { promptsFrom } from '../prompt-input.js';
import { onStopSignals } from '../stop-signals.js';
import { terminalSession } from '../terminal-session.js';
import { progressPrinter } from './progress.js';
import { addRunFlags, rangedFlag, runtimeWithTerminal, type RunFlags } from './run-options.js';

/**
 * The exit status of a finished run: 0 when it completed and no write or command it tried was
 * refused; 1 when it did not complete, or when any write or command was refused (the task's
 * effects did not all happen, whatever the model's report says).
 */
function runExitCode(output: TaskOutput, counts: EffectCounts): number {
  return output.status === 'completed' && counts.refusedChanges === 0 ? 0 : 1;
}

/** Registers `cadre run`. */
export function registerRunCommand(program: Command, ctx: CliContext): void {
  addRunFlags(
    program
      .command('run')
      .description('run one agent on a task and print its final report')
      .argument('<agent>', 'agent type (see `cadre agents list`)')
      .argument('<prompt...>', 'the task; - reads it from standard input'),
  )
    .option('--record <file>', 'record every model exchange to a cassette file')
    .option('--replay <file>', 'replay a recorded cassette instead of calling a model')
    .option('--resume <id>', 'continue a finished run of this agent type (its agentId) with the prompt')
    .action(
      async (agent: string, words: string[], flags: RunFlags & { resume?: string }, command: Command) => {
        const fromStdin = words.length === 1 && words[0] === '-';
        const [prompt = ''] = fromStdin ? await promptsFrom(words, 'run') : [words.join(' ').trim()];
        if (!prompt) throw new UsageError('run: the prompt is empty');
        const timeout = rangedFlag('--timeout', flags.timeout, 'timeout');
        const maxTurns = rangedFlag('--max-turns', flags.maxTurns, 'maxTurns');
        const { clean } = await globalOptions(command, ctx);
        // Listening before the runtime starts: a signal during start-up cancels the run as it begins.
        let stop: () => void = () => undefined;
        const signals = onStopSignals(() => stop());
        // On a terminal, asks go to a prompt on stderr; elsewhere (and when standard input held the
        // prompt, so no key can be read from it) they are denied as before.
        const term = fromStdin ? undefined : terminalSession(ctx, { tree: false });
        const io = term?.io ?? ctx.io;
        const runtime = await runtimeWithTerminal(command, ctx, flags, term, signals);
        const tally = new EffectTally();
        try {
          const handle = await runtime.task(
            {
              subagent_type: agent,
              prompt,
              ...(timeout ? { timeout } : {}),
              ...(maxTurns ? { max_turns: maxTurns } : {}),
              ...(flags.resume !== undefined ? { resume: flags.resume } : {}),
            },
            { onEvent: progressPrinter(io, undefined, clean, tally), events: false },
          );
          stop = handle.stop;
          if (signals.received) stop();
          const output = await handle.result;
          // The prompt's region goes before the result is printed: erasing it later would erase that.
          term?.close();
          const counts = tally.counts();
          if (flags.json) writeJson(ctx.io.stdout, { ...output, refused: counts.refused });
          else {
            writeLong(ctx.io.stdout, output.result, clean.block);
            if (!output.result.endsWith('\n')) ctx.io.stdout('\n');
            if (output.status !== 'completed')
              ctx.io.stderr(
                `cadre: run ${output.status}${output.error ? `: ${clean.line(output.error.message)}` : ''}\n`,
              );
          }
          const note = refusalNote(counts);
          if (note) ctx.io.stderr(`cadre: note: ${note}\n`);
          ctx.exitCode = signals.exitCode ?? runExitCode(output, counts);
        } finally {
          term?.close();
          signals.dispose();
          await runtime.close();
        }
      },
    );
}
