// `cadre chat [--agent NAME] [--permission-mode M] [--resume]`: an interactive session with a main
// agent that delegates to subagents, every agent's approvals in one queue. Ink and React are loaded
// here only, after the runtime is up, from a bundle of their own, so no other command pays for them.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { closest } from '../../../shared/closest.js';
import { ChatController } from '../../chat/controller.js';
import { lastSession, sessionsIndexPath } from '../../chat/sessions-index.js';
import { ApprovalQueue } from '../../ui/approval-queue.js';
import type { ChatTerminal } from '../../ui/chat/run-chat.js';
import { globalOptions, UsageError, type CliContext } from '../context.js';
import { runtimeFromFlags, type RunFlags } from './run-options.js';

interface ChatFlags extends RunFlags {
  agent?: string;
  resume?: boolean;
}

/** The default main agent (agents/main.md). */
const DEFAULT_CHAT_AGENT = 'main';

type ChatUi = { runChat(controller: ChatController, terminal: ChatTerminal): Promise<void> };

/**
 * Loads the chat's UI bundle. React picks its production build from NODE_ENV when it loads, so it
 * is set first; the development build re-renders several times slower.
 */
async function loadChatUi(ctx: CliContext): Promise<ChatUi> {
  process.env.NODE_ENV = 'production';
  // From the CLI bundle (dist/host/cli/cadre.cjs) the UI bundle is a sibling directory away; from
  // the unbundled build (dist/host/cli/commands/chat.js) the UI's own modules are used.
  const bundled = new URL('../ui/chat-ui.mjs', import.meta.url);
  const target = existsSync(fileURLToPath(bundled))
    ? bundled
    : new URL('../../ui/chat/run-chat.js', import.meta.url);
  const load = ctx.importModule ?? ((specifier: string) => import(specifier));
  return (await load(pathToFileURL(fileURLToPath(target)).href)) as ChatUi;
}

/** Registers `cadre chat`. */
export function registerChatCommand(program: Command, ctx: CliContext): void {
  program
    .command('chat')
    .description(
      'talk with a main agent that delegates to subagents; approve what any of them asks as it happens',
    )
    .option('--agent <name>', `the main agent (default: ${DEFAULT_CHAT_AGENT})`)
    .option('--permission-mode <mode>', 'default | acceptEdits | plan | bypassPermissions')
    .option('--model <model>', 'model alias or id for the main agent')
    .option('--resume', "continue this project's last chat session")
    .action(async (flags: ChatFlags, command: Command) => {
      const terminal = ctx.terminal;
      if (!terminal || !terminal.stdout.isTTY)
        throw new UsageError(
          'chat needs a terminal (standard input and output must be a TTY); for scripts use `cadre run`',
        );
      const agent = flags.agent ?? DEFAULT_CHAT_AGENT;
      const queue = new ApprovalQueue();
      const runtime = await runtimeFromFlags(command, ctx, flags, { approvals: queue, askTrust: false });
      try {
        const names = runtime.registry.agents.map((a) => a.name);
        if (!names.includes(agent)) {
          const hint = closest(agent, names);
          throw new UsageError(
            `--agent: unknown agent "${agent}"${hint ? ` (did you mean "${hint}"?)` : ''}; available: ${names.join(', ')}`,
          );
        }
        const resume = flags.resume
          ? await lastSession(sessionsIndexPath(runtime.records.dir), agent)
          : undefined;
        if (flags.resume && !resume)
          throw new UsageError(`--resume: no earlier chat session with the ${agent} agent in this project`);
        queue.attach(runtime.approvals);
        const { home } = await globalOptions(command, ctx);
        const controller = new ChatController({ runtime, queue, agent, home, ...(resume ? { resume } : {}) });
        await controller.showResumed();
        const ui = await loadChatUi(ctx);
        await ui.runChat(controller, { ...terminal, env: ctx.env });
        const transcript = controller.transcriptPath();
        const running = controller.runningCount();
        controller.close();
        ctx.io.stdout(
          transcript
            ? `session transcript: ${transcript}\ncontinue it with: cadre chat --resume${flags.agent ? ` --agent ${agent}` : ''}\n`
            : 'no message was sent; nothing was recorded\n',
        );
        if (running > 0) ctx.io.stderr(`cadre: ${running} agent(s) still running were cancelled\n`);
      } finally {
        await runtime.close();
      }
    });
}
