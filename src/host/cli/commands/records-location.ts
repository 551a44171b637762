// The records of the project a command runs in, for the commands that read them without starting a
// runtime (`transcripts prune`, `audit verify`): where they are, with legacy records moved first.
import { realpath } from 'node:fs/promises';
import { loadConfig } from '../../config.js';
import { formatIssue } from '../../registry/index.js';
import { recordsLocation, type RecordsLocation } from '../../records/location.js';
import { migrateLegacyRecords } from '../../records/migrate.js';
import type { CliContext, GlobalOptions } from '../context.js';

/**
 * The records location of the project in `options`, after moving legacy records out of it (what
 * was moved is said on stderr). A broken config is refused as the runtime refuses it: it may be
 * what names the records directory.
 */
export async function projectRecords(options: GlobalOptions, ctx: CliContext): Promise<RecordsLocation> {
  const cwd = await realpath(options.cwd);
  const loaded = await loadConfig({ cwd, home: options.home });
  if (loaded.errors.length > 0)
    throw new Error(`invalid configuration:\n${loaded.errors.map(formatIssue).join('\n')}`);
  const location = recordsLocation({ cwd, home: options.home, config: loaded.merged });
  const notes = await migrateLegacyRecords(location, {
    transcriptsConfigured: loaded.merged.transcriptsDir !== undefined,
  });
  for (const note of notes) ctx.io.stderr(`cadre: ${note}\n`);
  return location;
}
