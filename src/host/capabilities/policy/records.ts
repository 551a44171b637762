// cadre's own records (transcripts, the audit log, cassettes) as the policy sees them: absolute
// paths no file capability may touch, whatever the mode or the rules. A model must never read what
// another run saw, nor change the record of what it did itself.
import { isUnder } from './path-match.js';

/** The record location that holds one of `forms` (compared case-insensitively), if any. */
export function recordHolding(
  forms: readonly string[],
  records: readonly string[] | undefined,
): string | undefined {
  if (records === undefined || records.length === 0) return undefined;
  for (const form of forms) {
    const lower = form.toLowerCase();
    // Case-insensitive: on a case-insensitive file system `.CADRE/Projects` is the same directory.
    const hit = records.find((r) => isUnder(lower, r.toLowerCase()));
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** Why a file capability on a record is refused; no rule or mode opens it. */
export function recordReason(requested: string, record: string | undefined): string {
  const where = record === undefined ? 'its content shows it is one' : `it is under ${record}`;
  return (
    `"${requested}" is one of cadre's own records (transcripts, the audit log, the fan-out memory, cassettes, the registry cache, a batch's results: ${where}); ` +
    'no agent may read, list or change them in any mode. A person reads them with the cadre CLI.'
  );
}
