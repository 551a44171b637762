// `cadre explore <question...>`: one explore agent per question, all in parallel; each report is
// printed under its question (or, with --json, an array of TaskOutput objects with `question` and
// `refused`). A question given as `-` is read from standard input. On a terminal the live agent tree
// and a prompt for asks are drawn on stderr, with only how each agent ended, notices and refusals
// printed above them; elsewhere plain progress lines, asks denied. Ctrl-C, SIGTERM and SIGHUP
// cancel every agent (each recorded as cancelled) and exit 130, 143, 129.
import type { Command } from 'commander';
import type { AgentEvent } from '../../../shared/events.js';
import type { TaskOutput } from '../../../shared/task.js';
import { EffectTally } from '../../agents/effect-tally.js';
import type { TaskHandle } from '../../runtime.js';
import type { TerminalCleaner } from '../../terminal-text.js';
import type { CliContext } from '../context.js';
import { globalOptions, UsageError, writeJson, writeLong } from '../context.js';
import { promptsFrom } from '../prompt-input.js';
import { onStopSignals } from '../stop-signals.js';
import { terminalSession, type TerminalSession } from '../terminal-session.js';
import { progressPrinter } from './progress.js';
import { addRunFlags, rangedFlag, runtimeWithTerminal, type RunFlags } from './run-options.js';

const LEVELS = ['quick', 'medium', 'very-thorough'] as const;

/** The progress lines printed above the live tree: what the tree does not show, or shows only briefly. */
const UNDER_TREE: ReadonlySet<AgentEvent['type']> = new Set(['agent-end', 'notice', 'effect-refused']);

/** The options `cadre explore` takes beyond the shared run flags. */
type ExploreFlags = RunFlags & { thoroughness: string };

/** Registers `cadre explore`. */
export function registerExploreCommand(program: Command, ctx: CliContext): void {
  addRunFlags(
    program
      .command('explore')
      .description('explore the codebase: one read-only agent per question, in parallel')
      .argument('<question...>', 'one or more questions (quote each one); - reads one from standard input'),
  )
    .option('--thoroughness <level>', 'quick | medium | very-thorough', 'medium')
    .action((questions: string[], flags: ExploreFlags, command: Command) =>
      runExplore(questions, flags, command, ctx),
    );
}

/** One explore agent per question, in parallel; prints the reports and sets the exit code. */
async function runExplore(questions: string[], flags: ExploreFlags, command: Command, ctx: CliContext) {
  const list = (await promptsFrom(questions, 'explore')).filter((q) => q.length > 0);
  if (list.length === 0) throw new UsageError('explore: give at least one question');
  if (!(LEVELS as readonly string[]).includes(flags.thoroughness)) {
    throw new UsageError(`--thoroughness: expected one of ${LEVELS.join(', ')}, got "${flags.thoroughness}"`);
  }
  const timeout = rangedFlag('--timeout', flags.timeout, 'timeout');
  const maxTurns = rangedFlag('--max-turns', flags.maxTurns, 'maxTurns');
  const { clean } = await globalOptions(command, ctx);
  let stop: () => void = () => undefined;
  const signals = onStopSignals(() => stop());
  // Standard input that held a question cannot also give the prompt its keys.
  const term = questions.includes('-') ? undefined : terminalSession(ctx, { tree: true });
  const runtime = await runtimeWithTerminal(command, ctx, flags, term, signals);
  // A signal cancels every run started so far, and each one that starts after it.
  const started: TaskHandle[] = [];
  stop = () => started.forEach((h) => h.stop());
  const level = flags.thoroughness.replace('-', ' ');
  const progress = exploreProgress(ctx, term, clean);
  try {
    const tallies = list.map(() => new EffectTally());
    const launch = async (handle: Promise<TaskHandle>) => {
      const h = await handle;
      started.push(h);
      if (signals.received) h.stop();
      return h;
    };
    const handles = await Promise.all(
      list.map((question, i) =>
        launch(
          runtime.task(
            {
              subagent_type: 'explore',
              // Read-only whatever defines `explore`: a cloned repository's own explore.md (which
              // wins over the built-in) may list Write or Bash, and the person's mode may allow them.
              permission_mode: 'plan',
              description: question.slice(0, 60),
              prompt: `${question}\n\nThoroughness: ${level}.`,
              ...(timeout ? { timeout } : {}),
              ...(maxTurns ? { max_turns: maxTurns } : {}),
            },
            { onEvent: progress(question, tallies[i]), events: false },
          ),
        ),
      ),
    );
    const outputs: TaskOutput[] = await Promise.all(handles.map((h) => h.result));
    // The tree goes before the reports are printed: erasing it later would erase them.
    term?.close();
    printReports(ctx, clean, { list, outputs, tallies, json: flags.json === true });
    ctx.exitCode = signals.exitCode ?? (outputs.every((o) => o.status === 'completed') ? 0 : 1);
  } finally {
    term?.close();
    signals.dispose();
    await runtime.close();
  }
}

/**
 * The listener factory for one question's events. Progress lines name the question each agent
 * works on; under the live tree only how each ended, notices and refusals (the tree shows the rest).
 */
function exploreProgress(ctx: CliContext, term: TerminalSession | undefined, clean: TerminalCleaner) {
  return (question: string, tally: EffectTally | undefined) => {
    const print = progressPrinter(
      term?.io ?? ctx.io,
      (e) => (e.depth === 0 ? `${e.agentId} "${question.slice(0, 40)}"` : e.agentId),
      clean,
      tally,
      term ? UNDER_TREE : undefined,
    );
    if (!term) return print;
    return (event: AgentEvent) => {
      term.onEvent(event);
      print(event);
    };
  };
}

/** Each report under its question, or with --json an array of TaskOutput with `question` and `refused`. */
function printReports(
  ctx: CliContext,
  clean: TerminalCleaner,
  run: { list: string[]; outputs: TaskOutput[]; tallies: EffectTally[]; json: boolean },
): void {
  const { list, outputs, tallies } = run;
  if (run.json) {
    const rows = outputs.map((o, i) => ({
      question: list[i],
      ...o,
      refused: tallies[i]?.counts().refused ?? 0,
    }));
    writeJson(ctx.io.stdout, rows);
    return;
  }
  outputs.forEach((o, i) => {
    ctx.io.stdout(`${i > 0 ? '\n' : ''}## ${clean.line(list[i] ?? '')}\n\n`);
    writeLong(ctx.io.stdout, `${o.result.trim()}\n`, clean.block);
    if (o.status !== 'completed')
      ctx.io.stdout(`\n(${o.status}${o.error ? `: ${clean.line(o.error.message)}` : ''})\n`);
  });
}
