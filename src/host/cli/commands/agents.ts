// `cadre agents list | show | validate`: what agents exist, where each came from, and why a broken
// definition is broken. Registry problems go to stderr as one line each; they never stop the listing.
import type { Command } from 'commander';
import type { RegistryResult } from '../../../shared/agent-definition.js';
import { AgentNames } from '../../../shared/agent-name.js';
import { loadRegistry } from '../../registry/load-registry.js';
import { registryCacheDir } from '../../registry/registry-cache.js';
import { validateAgentPaths } from '../../registry/validate-files.js';
import type { TerminalCleaner } from '../../terminal-text.js';
import { type CliContext, globalOptions, inertJson } from '../context.js';
import { agentPage, agentsTable, agentSummary, countLine, issueLines } from './agents-format.js';

/** Registers `agents` and its subcommands. */
export function registerAgentsCommand(program: Command, ctx: CliContext): void {
  const agents = program.command('agents').description('list, inspect and validate agent definitions');

  agents
    .command('list')
    .description('list every agent with its source, model and tools')
    .option('--json', 'print a JSON array (one object per agent, without the prompt)')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const { clean } = await globalOptions(command, ctx);
      const registry = await load(command, ctx);
      if (opts.json)
        ctx.io.stdout(`${inertJson(JSON.stringify(registry.agents.map(agentSummary), null, 2))}\n`);
      else ctx.io.stdout(agentsTable(registry.agents, terminalWidth(ctx), clean));
      reportProblems(registry, ctx, clean);
    });

  agents
    .command('show')
    .description('show the resolved definition of one agent: tools, model, limits, prompt, provenance')
    .argument('<name>', 'agent name')
    .option('--json', 'print the definition as JSON')
    .action(async (name: string, opts: { json?: boolean }, command: Command) => {
      const { clean } = await globalOptions(command, ctx);
      const registry = await load(command, ctx);
      const names = new AgentNames(registry.agents.map((a) => a.name));
      const { found, hint } = names.lookup(name);
      const agent = registry.agents.find((a) => a.name === found);
      if (!agent) {
        ctx.io.stderr(
          `cadre: unknown agent "${clean.line(name)}"${hint ? ` (did you mean "${clean.line(hint)}"?)` : ''}\navailable agents: ${clean.line(names.all().join(', ')) || '(none)'}\n`,
        );
        reportProblems(registry, ctx, clean);
        ctx.exitCode = 1;
        return;
      }
      ctx.io.stdout(opts.json ? `${inertJson(JSON.stringify(agent, null, 2))}\n` : agentPage(agent, clean));
      reportProblems(registry, ctx, clean);
    });

  agents
    .command('validate')
    .description(
      'report every error and warning in agent definitions (all sources, or the given files); exit 1 on any error',
    )
    .argument('[paths...]', 'agent files, agents directories or config.json files to check on their own')
    .option('--json', 'print { agents, errors, warnings } as JSON')
    .action(async (paths: string[], opts: { json?: boolean }, command: Command) => {
      const options = await globalOptions(command, ctx);
      const result =
        paths.length > 0
          ? await validateAgentPaths(paths, { cwd: options.cwd, home: options.home, env: ctx.env })
          : await load(command, ctx, { fresh: true });
      if (opts.json) {
        const agents = result.agents.map((a) => ({ name: a.name, source: a.source, path: a.path }));
        ctx.io.stdout(
          `${inertJson(JSON.stringify({ agents, errors: result.errors, warnings: result.warnings }, null, 2))}\n`,
        );
      } else {
        ctx.io.stdout(
          issueLines('error', result.errors, options.clean) +
            issueLines('warning', result.warnings, options.clean),
        );
        const agentsWord = result.agents.length === 1 ? 'agent' : 'agents';
        ctx.io.stdout(
          `${result.agents.length} ${agentsWord} loaded, ${countLine(result.errors.length, result.warnings.length)}\n`,
        );
      }
      if (result.errors.length > 0) ctx.exitCode = 1;
    });
}

async function load(
  command: Command,
  ctx: CliContext,
  opts: { fresh?: boolean } = {},
): Promise<RegistryResult> {
  const options = await globalOptions(command, ctx);
  return loadRegistry({
    cwd: options.cwd,
    home: options.home,
    cliAgents: options.agents,
    env: ctx.env,
    cacheDir: registryCacheDir(ctx.env, options.home),
    ...(opts.fresh ? { fresh: true } : {}),
  });
}

// Errors matter to whoever reads a listing, so they are printed in full; warnings only as a count.
function reportProblems(registry: RegistryResult, ctx: CliContext, clean: TerminalCleaner): void {
  if (registry.errors.length === 0 && registry.warnings.length === 0) return;
  ctx.io.stderr(issueLines('error', registry.errors, clean));
  ctx.io.stderr(
    `cadre: ${countLine(registry.errors.length, registry.warnings.length)} in agent definitions (details: cadre agents validate)\n`,
  );
}

function terminalWidth(ctx: CliContext): number {
  const columns = Number(ctx.env.COLUMNS);
  if (Number.isInteger(columns) && columns > 40) return columns;
  return process.stdout.isTTY ? process.stdout.columns : 120;
}
