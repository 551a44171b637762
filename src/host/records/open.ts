// Opens a project's records for a runtime: where they are, legacy ones moved out of the project,
// the audit log opened, and every path the file tools must not touch listed.
import { createAuditLog, type AuditLog } from '../capabilities/audit.js';
import { isUnder } from '../capabilities/policy/path-match.js';
import type { CadreConfig } from '../config.js';
import { CadreError } from '../../shared/errors.js';
import { recordPaths, recordsLocation, type RecordsLocation } from './location.js';
import { migrateLegacyRecords } from './migrate.js';

/**
 * Finds this project's records, moves legacy ones out of the project, opens the audit log and lists
 * every path the file tools must not touch (the cassettes `extra` names included). Refuses a layout
 * in which the project itself would be a record (every file denied).
 */
export async function openRecords(
  cwd: string,
  home: string,
  config: CadreConfig,
  extra: readonly (string | undefined)[],
): Promise<{ location: RecordsLocation; paths: string[]; audit: AuditLog | undefined; notices: string[] }> {
  const location = recordsLocation({ cwd, home, config });
  const notices = await migrateLegacyRecords(location, {
    transcriptsConfigured: config.transcriptsDir !== undefined,
  });
  const paths = await recordPaths(
    location,
    extra.filter((p): p is string => p !== undefined),
  );
  const holder = paths.find((p) => isUnder(cwd, p));
  if (holder !== undefined)
    throw new CadreError(
      'invalid_input',
      `cadre's records (${holder}, from transcriptsDir or dataDir in config) would hold the whole project ${cwd}; keep them outside it`,
    );
  const audit = await createAuditLog(location.auditLog).catch((error: unknown) => {
    notices.push(`the audit log ${location.auditLog} cannot be written: ${(error as Error).message}`);
    return undefined;
  });
  return { location, paths, audit, notices };
}
