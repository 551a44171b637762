// `cadre explore <question...>`: one explore agent per question, all in parallel; each report is
// printed under its question (or, with --json, an array of TaskOutput objects with `question`).
import type { Command } from 'commander';
import type { AgentEvent } from '../../../shared/events.js';
import type { TaskOutput } from '../../../shared/task.js';
import { terminalSession } from '../terminal-session.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../context.js';
import { progressPrinter } from './progress.js';
import { addRunFlags, positive, runtimeFromFlags, type RunFlags } from './run-options.js';

const LEVELS = ['quick', 'medium', 'very-thorough'] as const;

/** Registers `cadre explore`. */
export function registerExploreCommand(program: Command, ctx: CliContext): void {
  addRunFlags(
    program
      .command('explore')
      .description('explore the codebase: one read-only agent per question, in parallel')
      .argument('<question...>', 'one or more questions (quote each one)'),
  )
    .option('--thoroughness <level>', 'quick | medium | very-thorough', 'medium')
    .action(async (questions: string[], flags: RunFlags & { thoroughness: string }, command: Command) => {
      const list = questions.map((q) => q.trim()).filter((q) => q.length > 0);
      if (list.length === 0) throw new UsageError('explore: give at least one question');
      if (!(LEVELS as readonly string[]).includes(flags.thoroughness)) {
        throw new UsageError(
          `--thoroughness: expected one of ${LEVELS.join(', ')}, got "${flags.thoroughness}"`,
        );
      }
      const timeout = positive('--timeout', flags.timeout);
      const maxTurns = positive('--max-turns', flags.maxTurns, true);
      // On a terminal: the live agent tree and a prompt for asks; elsewhere plain lines, asks denied.
      const term = terminalSession(ctx, { tree: true });
      const runtime = await runtimeFromFlags(command, ctx, flags, term?.approvals).catch((error: unknown) => {
        term?.close();
        throw error;
      });
      term?.attach(runtime.approvals);
      const level = flags.thoroughness.replace('-', ' ');
      // Ctrl-C cancels every agent (each recorded as cancelled) and exits 130.
      let interrupted = false;
      const onSigint = () => {
        interrupted = true;
        void runtime.close();
      };
      process.once('SIGINT', onSigint);
      // Progress lines name the question each agent works on; under the live tree only how each ended.
      const progress = (question: string) => {
        const print = progressPrinter(term?.io ?? ctx.io, (e) =>
          e.depth === 0 ? `${e.agentId} "${question.slice(0, 40)}"` : e.agentId,
        );
        if (!term) return print;
        return (event: AgentEvent) => {
          term.onEvent(event);
          if (event.type === 'agent-end' || event.type === 'notice') print(event);
        };
      };
      try {
        const handles = await Promise.all(
          list.map((question) =>
            runtime.task(
              {
                subagent_type: 'explore',
                description: question.slice(0, 60),
                prompt: `${question}\n\nThoroughness: ${level}.`,
                ...(timeout ? { timeout } : {}),
                ...(maxTurns ? { max_turns: maxTurns } : {}),
              },
              { onEvent: progress(question) },
            ),
          ),
        );
        const outputs: TaskOutput[] = await Promise.all(handles.map((h) => h.result));
        // The tree goes before the reports are printed: erasing it later would erase them.
        term?.close();
        if (flags.json) {
          ctx.io.stdout(
            `${JSON.stringify(
              outputs.map((o, i) => ({ question: list[i], ...o })),
              null,
              2,
            )}\n`,
          );
        } else {
          outputs.forEach((o, i) => {
            ctx.io.stdout(`${i > 0 ? '\n' : ''}## ${list[i]}\n\n${o.result.trim()}\n`);
            if (o.status !== 'completed')
              ctx.io.stdout(`\n(${o.status}${o.error ? `: ${o.error.message}` : ''})\n`);
          });
        }
        ctx.exitCode = interrupted ? 130 : outputs.every((o) => o.status === 'completed') ? 0 : 1;
      } finally {
        term?.close();
        process.off('SIGINT', onSigint);
        await runtime.close();
      }
    });
}
