// Builds the `cadre` command tree and runs it. Subcommands live in their own files and are added
// through COMMANDS, so a new command is one file plus one line here. Usage mistakes exit 2 with a
// clear message; failures print one line (no stack trace) and exit 1.
import { Command, CommanderError } from 'commander';
import { registerAgentsCommand } from './commands/agents.js';
import { registerAuditCommand } from './commands/audit.js';
import { registerBatchCommand } from './commands/batch.js';
import { registerChatCommand } from './commands/chat.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerExploreCommand } from './commands/explore.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerRunCommand } from './commands/run.js';
import { registerTranscripts } from './commands/transcripts.js';
import { type CliContext, processContext, UsageError } from './context.js';
import { terminalCleaner } from '../terminal-text.js';
import { flagWording } from './flag-wording.js';
import { packageVersion } from './version.js';

/** Adds one subcommand (and its own subcommands) to the program. */
type CommandRegistrar = (program: Command, ctx: CliContext) => void;

/** Every subcommand, in the order `cadre --help` lists them. */
const COMMANDS: CommandRegistrar[] = [
  registerRunCommand,
  registerExploreCommand,
  registerChatCommand,
  registerBatchCommand,
  registerAgentsCommand,
  registerMcpCommand,
  registerTranscripts,
  registerAuditCommand,
  registerDoctorCommand,
];

/** The exit status for usage errors (unknown flag, unknown command, bad flag value). */
const USAGE_EXIT = 2;

/** Builds the program; settings are applied before the registrars so every subcommand inherits them. */
function buildProgram(
  ctx: CliContext,
  version: string,
  registrars: readonly CommandRegistrar[] = COMMANDS,
): Command {
  const program = new Command('cadre')
    .description('A worker-thread sandboxed multi-agent runtime: define agents, inspect them, run them.')
    .version(version, '-V, --version')
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--agents <json|file>', 'extra agent definitions: inline JSON {"name": {...}} or a JSON file')
    .option(
      '--raw',
      'print model, tool and agent-file text as it is (escape sequences included), for a renderer downstream',
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr });
  for (const register of registrars) register(program, ctx);
  return program;
}

/** Runs `cadre` with `args` (without node and the script path); resolves to the exit status. */
export async function runCli(args: readonly string[], ctx: CliContext = processContext()): Promise<number> {
  const program = buildProgram(ctx, await packageVersion());
  try {
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message; requested help and --version exit 0, the rest are usage errors.
      return error.exitCode === 0 ? 0 : USAGE_EXIT;
    }
    if (error instanceof UsageError) {
      ctx.io.stderr(`cadre: ${error.message}\n(add --help for usage)\n`);
      return USAGE_EXIT;
    }
    const detail = ctx.env.CADRE_DEBUG && error instanceof Error ? `\n${error.stack ?? ''}` : '';
    // Error messages can quote model input or file content: shown inert unless --raw.
    const clean = terminalCleaner(args.includes('--raw'));
    const message = flagWording(error instanceof Error ? error.message : String(error));
    ctx.io.stderr(`cadre: ${clean.block(message)}${detail}\n`);
    return 1;
  }
}
