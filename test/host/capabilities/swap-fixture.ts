// The check-then-use race, staged: a project whose `sub/` directory a racing agent swaps for a
// symlink to a directory outside it, right after the host checked a path through `sub/`.
import { mkdir, mkdtemp, realpath, rename, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { resolvePath } from '../../../src/host/capabilities/paths.js';

/** The temp directory, the project in it (`sub/f.txt` holds "inside") and `outside/f.txt` ("SECRET"). */
export interface SwapProject {
  base: string;
  project: string;
  outside: string;
}

/** Creates the project and the outside directory under a new temp directory (its real path). */
export async function swapProject(prefix: string): Promise<SwapProject> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  const project = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(project, 'sub'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(project, 'sub', 'f.txt'), 'inside\n');
  await writeFile(path.join(outside, 'f.txt'), 'SECRET\n');
  return { base, project, outside };
}

/** Checks `rel`, then swaps `sub/` for a symlink to the outside; returns the checked real path. */
export async function checkedThenSwapped({ project, outside }: SwapProject, rel: string): Promise<string> {
  const checked = await resolvePath(rel, project);
  expect(checked.real.startsWith(project)).toBe(true);
  await rename(path.join(project, 'sub'), path.join(project, 'sub-moved'));
  await symlink(outside, path.join(project, 'sub'));
  return checked.real;
}
