// `cadre transcripts prune --older-than 30d`: removes old run transcripts from the project's
// transcripts directory (`transcriptsDir` in config, else the project's records directory).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { parseDuration } from '../../transcripts/duration.js';
import { pruneTranscripts } from '../../transcripts/prune.js';
import { type CliContext, globalOptions, UsageError } from '../context.js';
import { projectRecords } from './records-location.js';

/** Registers `transcripts` and its subcommands. */
export function registerTranscripts(program: Command, ctx: CliContext): void {
  const transcripts = program
    .command('transcripts')
    .description('manage the JSONL transcripts of agent runs');

  transcripts
    .command('prune')
    .description('delete transcripts last written longer ago than --older-than')
    .requiredOption('--older-than <duration>', 'age such as 30d, 12h, 90m or 1w')
    .option(
      '--dir <dir>',
      'transcripts directory (default: transcriptsDir from config, else ~/.cadre/projects/<project>/transcripts)',
    )
    .option('--dry-run', 'list what would be deleted without deleting it')
    .action(async (opts: { olderThan: string; dir?: string; dryRun?: boolean }, command: Command) => {
      const age = parseDuration(opts.olderThan);
      if ('error' in age) throw new UsageError(`--older-than: ${age.error}`);
      const options = await globalOptions(command, ctx);
      const dir =
        opts.dir !== undefined
          ? path.resolve(options.cwd, opts.dir)
          : (await projectRecords(options, ctx)).transcriptsDir;
      // A directory named on the command line must exist: a typo must not read as "pruned".
      const found = await stat(dir).catch(() => undefined);
      if (opts.dir !== undefined && !found?.isDirectory())
        throw new UsageError(`--dir: ${dir} ${found ? 'is not a directory' : 'does not exist'}`);
      if (found === undefined) {
        ctx.io.stdout(
          `nothing to prune: there is no transcripts directory at ${dir} (no run has written one yet)\n`,
        );
        return;
      }
      const result = await pruneTranscripts(dir, age.ms, { dryRun: opts.dryRun === true });
      const verb = opts.dryRun ? 'would remove' : 'removed';
      // A project's own transcriptsDir may hold files a cloned repository named: inert on the terminal.
      for (const file of result.removed) ctx.io.stdout(`${verb} ${options.clean.line(file)}\n`);
      const noun = (n: number) => (n === 1 ? 'transcript' : 'transcripts');
      ctx.io.stdout(
        `${verb} ${result.removed.length} ${noun(result.removed.length)} older than ${opts.olderThan} from ${dir}; kept ${result.kept}\n`,
      );
    });
}
