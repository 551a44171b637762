// Test helpers: real temporary project and home directories, filled from fixtures or inline text.
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/agents, absolute. */
export const FIXTURES = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));

/** A fresh temporary directory; `cleanup` removes it. */
export async function tempDir(
  prefix = 'cadre-test-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes `files` (relative path → content) under `root`, creating directories. */
export async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  await Promise.all(
    Object.entries(files).map(async ([rel, content]) => {
      const file = path.join(root, rel);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    }),
  );
}

/** Copies a fixture directory (relative to FIXTURES) to `dest`. */
export async function copyFixture(rel: string, dest: string): Promise<void> {
  await cp(path.join(FIXTURES, rel), dest, { recursive: true });
}

/** A minimal valid agent file. */
export function agentFile(name: string, description: string, extra = ''): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\nYou are ${name}.\n`;
}
