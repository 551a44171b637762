// Moves records an earlier cadre kept inside the project (`.cadre/transcripts/`, `.cadre/audit.jsonl`)
// to the project's records directory, once, so a model's file tools can no longer reach them. A
// transcript already present at the destination is left where it was (and reported); the old audit
// log, which has no hash chain, is kept beside the new one under a name that says so.
import { copyFile, mkdir, readdir, rename, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { RecordsLocation } from './location.js';

/** Moves `from` to `to` (across file systems too); false when `to` exists or `from` vanished. */
async function move(from: string, to: string): Promise<boolean> {
  if (await stat(to).catch(() => undefined)) return false;
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code !== 'EXDEV') throw error;
  }
  await copyFile(from, to);
  await unlink(from);
  return true;
}

/**
 * Migrates the legacy records of `loc`'s project. Returns one line per thing done or left, for the
 * person (empty when there was nothing to move). Transcripts move only when the config does not
 * name a transcripts directory of its own (then the person chose where they live). Never throws:
 * a failure is reported, and the legacy paths stay out of the file tools' reach regardless.
 */
export async function migrateLegacyRecords(
  loc: RecordsLocation,
  options: { transcriptsConfigured: boolean },
): Promise<string[]> {
  const notes: string[] = [];
  try {
    if (!options.transcriptsConfigured) notes.push(...(await moveTranscripts(loc)));
    const audit = await stat(loc.legacy.auditLog).catch(() => undefined);
    if (audit?.isFile()) {
      await mkdir(loc.dir, { recursive: true });
      const kept = path.join(loc.dir, `audit-unchained-${Date.now()}.jsonl`);
      if (await move(loc.legacy.auditLog, kept))
        notes.push(
          `moved the audit log ${loc.legacy.auditLog} (written before it was hash-chained) to ${kept}`,
        );
    }
  } catch (error) {
    notes.push(`could not move records out of the project: ${(error as Error).message}`);
  }
  return notes;
}

async function moveTranscripts(loc: RecordsLocation): Promise<string[]> {
  const from = loc.legacy.transcriptsDir;
  if (path.resolve(from) === path.resolve(loc.transcriptsDir)) return [];
  const names = await readdir(from).catch(() => undefined);
  if (names === undefined) return [];
  await mkdir(loc.transcriptsDir, { recursive: true });
  let moved = 0;
  const left: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.jsonl'))) {
    if (await move(path.join(from, name), path.join(loc.transcriptsDir, name))) moved++;
    else left.push(name);
  }
  const notes: string[] = [];
  if (moved > 0)
    notes.push(`moved ${moved} transcript${moved === 1 ? '' : 's'} from ${from} to ${loc.transcriptsDir}`);
  if (left.length > 0)
    notes.push(
      `left ${left.length} transcript(s) in ${from}: a transcript of the same name is already in ${loc.transcriptsDir}`,
    );
  // Removed only when empty: anything else in it is not cadre's to delete.
  await rmdir(from).catch(() => undefined);
  return notes;
}
