// The global setup's staleness check: a source newer than any bundle, or a missing bundle, means
// the bundles must be rebuilt before tests run them.
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OUTPUTS, staleReason } from '../support/fresh-build.js';
import { tempProject } from '../support/project.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A tree with every input and output, inputs at `inputAt` and outputs at `outputAt` (seconds). */
async function tree(inputAt: number, outputAt: number): Promise<string> {
  const files: Record<string, string> = {
    'src/worker/agent-loop.ts': 'x',
    'scripts/bundle.mjs': 'x',
    'package.json': '{}',
    'tsconfig.json': '{}',
    'tsconfig.build.json': '{}',
  };
  for (const output of OUTPUTS) files[output] = 'x';
  const p = await tempProject(files);
  cleanups.push(p.cleanup);
  for (const rel of Object.keys(files)) {
    const at = OUTPUTS.includes(rel) ? outputAt : inputAt;
    await utimes(path.join(p.dir, rel), at, at);
  }
  for (const dir of ['src', 'src/worker', 'scripts']) await utimes(path.join(p.dir, dir), inputAt, inputAt);
  return p.dir;
}

describe('staleReason', () => {
  it('is undefined when every bundle is newer than every source', async () => {
    expect(staleReason(await tree(1_000, 2_000))).toBeUndefined();
  });

  it('names a source edited after the build', async () => {
    const root = await tree(1_000, 2_000);
    await utimes(path.join(root, 'src/worker/agent-loop.ts'), 3_000, 3_000);
    expect(staleReason(root)).toBe('src changed since the last build');
  });

  it('names a new source file and a missing bundle', async () => {
    const root = await tree(1_000, 2_000);
    await mkdir(path.join(root, 'src/host'), { recursive: true });
    await writeFile(path.join(root, 'src/host/new.ts'), 'x');
    expect(staleReason(root)).toBe('src changed since the last build');
    const fresh = await tree(1_000, 2_000);
    await rm(path.join(fresh, 'dist/worker-bundle/worker.cjs'));
    expect(staleReason(fresh)).toBe('dist/worker-bundle/worker.cjs is missing');
  });
});
