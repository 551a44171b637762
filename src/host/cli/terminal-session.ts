// What `cadre run` and `cadre explore` add on a terminal: asks go to a prompt on stderr instead of
// being denied, progress lines print above it, and `explore` shows the live agent tree. Off a TTY
// none of this exists: the commands deny asks as before and print plain lines.
import type { ApprovalBroker } from '../approvals/broker.js';
import type { Resolver } from '../approvals/types.js';
import type { AgentEvent } from '../../shared/events.js';
import { reduceRows, type AgentRows } from '../ui/agent-rows.js';
import { LiveRegion } from '../ui/live-region.js';
import { terminalPrompt } from '../ui/terminal-prompt.js';
import { treeLines } from '../ui/tree-lines.js';
import type { CliContext, CliIO } from './context.js';

/** A command's terminal. */
export interface TerminalSession {
  /** Where progress lines go: above the prompt and the tree. */
  io: CliIO;
  /** The resolver to create the runtime with. */
  approvals: Resolver;
  /** Counts waiting requests once the runtime exists. */
  attach(broker: ApprovalBroker): void;
  /** Feeds the live tree (only with `tree: true`). */
  onEvent(event: AgentEvent): void;
  /** Removes the prompt and the tree and gives the terminal back. */
  close(): void;
}

/** Rows of the tree at most (the prompt needs the rest of the screen). */
const TREE_ROWS = 8;

/**
 * The terminal session of a command, or undefined off a TTY. Ctrl-C while a prompt holds the
 * keyboard in raw mode is passed on as SIGINT, which the commands already handle.
 */
export function terminalSession(ctx: CliContext, options: { tree: boolean }): TerminalSession | undefined {
  const terminal = ctx.terminal;
  if (!terminal) return undefined;
  const region = new LiveRegion(terminal.stderr, { noColor: ctx.env.NO_COLOR !== undefined });
  let rows: AgentRows = {};
  const lines = () =>
    options.tree ? treeLines(rows, { now: Date.now(), width: region.width, maxRows: TREE_ROWS }) : [];
  const prompt = terminalPrompt(terminal.stdin, region, {
    extraLines: lines,
    onInterrupt: () => process.kill(process.pid, 'SIGINT'),
  });
  const redraw = () => prompt.redraw(false);
  // Elapsed times move even when no event arrives.
  const ticker = options.tree ? setInterval(redraw, 1000) : undefined;
  ticker?.unref();
  return {
    io: { stdout: ctx.io.stdout, stderr: (text) => region.log(text) },
    approvals: prompt.queue,
    attach: (broker) => prompt.attach(broker),
    onEvent(event) {
      if (!options.tree) return;
      const next = reduceRows(rows, event);
      if (next === rows) return;
      rows = next;
      redraw();
    },
    close() {
      clearInterval(ticker);
      prompt.close();
      region.close();
    },
  };
}
