// Flags shared by the commands that run agents (`run`, `explore`, `batch`): parsing with errors that
// name the flag, and building the runtime from them.
import type { Command } from 'commander';
import { PermissionMode } from '../../../shared/task.js';
import { formatIssue } from '../../registry/index.js';
import { createRuntime, type Runtime } from '../../runtime.js';
import { globalOptions, UsageError, type CliContext } from '../context.js';

/** The raw values commander hands over. */
export interface RunFlags {
  json?: boolean;
  model?: string;
  timeout?: string;
  maxTurns?: string;
  permissionMode?: string;
  record?: string;
  replay?: string;
  concurrency?: string;
  tokenBudget?: string;
  isolation?: string;
}

/** Adds the flags every agent-running command takes. */
export function addRunFlags(command: Command): Command {
  return command
    .option('--json', 'print JSON instead of text')
    .option('--model <model>', 'model alias or id (haiku, sonnet, opus, provider:model, offline)')
    .option('--timeout <seconds>', 'wall-clock timeout per run, in seconds')
    .option('--max-turns <n>', 'most model turns per run')
    .option('--permission-mode <mode>', 'default | acceptEdits | plan | bypassPermissions')
    .option('--token-budget <n>', 'token budget per agent tree')
    .option('--isolation <mode>', 'thread (default) or process (hard memory cap per run)');
}

/** A positive number flag, or a usage error naming it. */
export function positive(flag: string, value: string | undefined, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag}: expected a positive ${integer ? 'integer' : 'number'}, got "${value}"`);
  }
  return n;
}

/** The permission mode flag, checked. */
export function permissionMode(value: string | undefined): PermissionMode | undefined {
  if (value === undefined) return undefined;
  const parsed = PermissionMode.safeParse(value);
  if (!parsed.success)
    throw new UsageError(
      `--permission-mode: expected one of ${PermissionMode.options.join(', ')}, got "${value}"`,
    );
  return parsed.data;
}

/** Builds the runtime for a command from the global and run flags. */
export async function runtimeFromFlags(command: Command, ctx: CliContext, flags: RunFlags): Promise<Runtime> {
  const global = await globalOptions(command, ctx);
  const mode = permissionMode(flags.permissionMode);
  const maxTurns = positive('--max-turns', flags.maxTurns, true);
  const tokenBudget = positive('--token-budget', flags.tokenBudget, true);
  const concurrency = positive('--concurrency', flags.concurrency, true);
  if (flags.isolation !== undefined && flags.isolation !== 'thread' && flags.isolation !== 'process') {
    throw new UsageError(`--isolation: expected thread or process, got "${flags.isolation}"`);
  }
  const runtime = await createRuntime({
    cwd: global.cwd,
    home: global.home,
    env: ctx.env,
    ...(global.agents !== undefined ? { agents: global.agents } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    ...(mode ? { permissionMode: mode } : {}),
    ...(maxTurns ? { maxTurns } : {}),
    ...(tokenBudget ? { tokenBudget } : {}),
    ...(concurrency ? { concurrency } : {}),
    ...(flags.isolation === 'thread' || flags.isolation === 'process' ? { isolation: flags.isolation } : {}),
    ...(flags.record !== undefined ? { record: flags.record } : {}),
    ...(flags.replay !== undefined ? { replay: flags.replay } : {}),
    onWarning: (message) => ctx.io.stderr(`cadre: warning: ${message}\n`),
    // Only for cadre's own tests: lets a `fault:<kind>` prompt make its worker fail on purpose.
    ...(ctx.env.CADRE_FAULT_INJECTION === '1' ? { allowFaultInjection: true } : {}),
  });
  // A broken agent file never stops the others; say what was skipped.
  for (const issue of runtime.registry.errors) ctx.io.stderr(`cadre: warning: ${formatIssue(issue)}\n`);
  return runtime;
}
