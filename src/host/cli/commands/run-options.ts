// Flags shared by the commands that run agents (`run`, `explore`, `batch`): parsing with errors that
// name the flag, and building the runtime from them.
import { registryCacheDir } from '../../registry/registry-cache.js';
import type { Command } from 'commander';
import { PermissionMode } from '../../../shared/task.js';
import type { Resolver } from '../../approvals/types.js';
import type { TerminalSession } from '../terminal-session.js';
import { modelConfigFor, modelNameProblem } from '../../agents/model-resolve.js';
import { RANGES, rangeProblem, type RangedKey } from '../../../shared/ranges.js';
import { formatIssue } from '../../registry/index.js';
import { createRuntime, type Runtime } from '../../runtime.js';
import { globalOptions, UsageError, type CliContext } from '../context.js';
import { terminalTrustPrompt } from './trust-prompt.js';

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

/** A number flag checked against its range (shared/ranges.ts), or a usage error naming it. */
export function rangedFlag(flag: string, value: string | undefined, key: RangedKey): number | undefined {
  if (value === undefined) return undefined;
  const n = value.trim() === '' ? NaN : Number(value);
  const problem = rangeProblem(n, RANGES[key]);
  if (problem !== undefined) throw new UsageError(`${flag}: ${problem}, got "${value}"`);
  return n;
}

/** The `--model` flag, checked as an agent file's `model` is (a mistyped alias is an error). */
export function modelFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = modelNameProblem(value, ['offline', 'replay']);
  if (problem !== undefined) throw new UsageError(`--model: ${problem}`);
  return value;
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

/**
 * Builds the runtime for a command from the global and run flags. `approvals` answers asks
 * (default: deny). `askTrust: false` (batches, chat) never asks on the terminal whether to trust
 * project MCP servers: untrusted ones are refused, with a notice naming `cadre mcp trust`.
 * `recordFiles` are kept from every agent as cadre's records (a batch's results file);
 * `readOnlyFiles` are readable by agents but never changed by them (a batch's tasks file).
 */
export async function runtimeFromFlags(
  command: Command,
  ctx: CliContext,
  flags: RunFlags,
  options: {
    askTrust?: boolean;
    approvals?: Resolver;
    recordFiles?: readonly string[];
    readOnlyFiles?: readonly string[];
  } = {},
): Promise<Runtime> {
  const global = await globalOptions(command, ctx);
  const mode = permissionMode(flags.permissionMode);
  const maxTurns = rangedFlag('--max-turns', flags.maxTurns, 'maxTurns');
  const tokenBudget = rangedFlag('--token-budget', flags.tokenBudget, 'tokenBudget');
  const concurrency = rangedFlag('--concurrency', flags.concurrency, 'concurrency');
  rangedFlag('--timeout', flags.timeout, 'timeout');
  const model = modelFlag(flags.model);
  if (flags.isolation !== undefined && flags.isolation !== 'thread' && flags.isolation !== 'process') {
    throw new UsageError(`--isolation: expected thread or process, got "${flags.isolation}"`);
  }
  const trust = options.askTrust === false ? undefined : terminalTrustPrompt();
  const approvals = options.approvals;
  const runtime = await (ctx.startRuntime ?? createRuntime)({
    ...(trust ? { mcpTrust: trust } : {}),
    cwd: global.cwd,
    home: global.home,
    env: ctx.env,
    registryCacheDir: registryCacheDir(ctx.env, global.home),
    ...(global.agents !== undefined ? { agents: global.agents } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(mode ? { permissionMode: mode } : {}),
    ...(maxTurns ? { maxTurns } : {}),
    ...(tokenBudget ? { tokenBudget } : {}),
    ...(concurrency ? { concurrency } : {}),
    ...(flags.isolation === 'thread' || flags.isolation === 'process' ? { isolation: flags.isolation } : {}),
    ...(flags.record !== undefined ? { record: flags.record } : {}),
    ...(flags.replay !== undefined ? { replay: flags.replay } : {}),
    ...(approvals ? { approvals } : {}),
    ...(options.recordFiles ? { recordFiles: options.recordFiles } : {}),
    ...(options.readOnlyFiles ? { readOnlyFiles: options.readOnlyFiles } : {}),
    // Warnings quote the project's own config (paths it may not widen to): made inert like model text.
    onWarning: (message) => ctx.io.stderr(`cadre: warning: ${global.clean.line(message)}\n`),
  });
  // A broken agent file never stops the others; say what was skipped (its text made inert).
  for (const issue of runtime.registry.errors)
    ctx.io.stderr(`cadre: warning: ${global.clean.line(formatIssue(issue))}\n`);
  for (const notice of runtime.notices) ctx.io.stderr(`cadre: ${global.clean.line(notice)}\n`);
  // `provider:model` must name a configured provider: said now, not once per run.
  if (model !== undefined) {
    try {
      modelConfigFor(model, runtime.config, ctx.env, {
        streamIdleTimeoutMs: 1000,
        ...(flags.replay !== undefined ? { cassette: '' } : {}),
      });
    } catch (error) {
      await runtime.close();
      throw new UsageError(`--model: ${(error as Error).message}`);
    }
  }
  return runtime;
}

/**
 * The runtime of `run` or `explore`: on a terminal, asks go to `term`'s prompt and it counts the
 * waiting requests. Should the runtime not start, the terminal and the signal listeners are given
 * back before the error goes on.
 */
export async function runtimeWithTerminal(
  command: Command,
  ctx: CliContext,
  flags: RunFlags,
  term: TerminalSession | undefined,
  signals: { dispose(): void },
): Promise<Runtime> {
  const runtime = await runtimeFromFlags(
    command,
    ctx,
    flags,
    term ? { approvals: term.approvals } : {},
  ).catch((error: unknown) => {
    term?.close();
    signals.dispose();
    return Promise.reject(error);
  });
  term?.attach(runtime.approvals);
  return runtime;
}
