// Temp project directories for tests: a real directory with a few files, removed afterwards.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { recordsLocation, type RecordsLocation } from '../../src/host/records/location.js';

/** A temp project with `files` (relative path -> content). */
export async function tempProject(
  files: Record<string, string> = {},
): Promise<{ dir: string; home: string; cleanup(): Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-test-'));
  const dir = path.join(root, 'project');
  const home = path.join(root, 'home');
  await mkdir(dir, { recursive: true });
  await mkdir(home, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { dir, home, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Where cadre keeps a temp project's records (its transcripts and audit log), with no config moving them. */
export async function projectRecords(project: { dir: string; home: string }): Promise<RecordsLocation> {
  return recordsLocation({ cwd: await realpath(project.dir), home: project.home, config: {} });
}
