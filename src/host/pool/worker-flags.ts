// The Node flags a worker (thread or process) starts with: the permission model with read access
// to cadre's own compiled code and its dependencies only, so subverted worker code still cannot
// open a file, spawn a process or start a worker. Flag spellings differ between Node 20 and 22+.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The directory holding the compiled worker entry (dist/worker) and its siblings. Workers always
 * run compiled code: when the host itself runs from source (tests, benchmarks), it still points
 * at the package's dist/.
 */
export const DIST_DIR = import.meta.url.endsWith('.ts')
  ? path.resolve(here, '..', '..', '..', 'dist')
  : path.resolve(here, '..', '..');

/**
 * Which worker code runs agents, when not the package's own bundles (cadre's tests run workers of
 * their own around the real one; see `startRuntime`).
 */
export interface WorkerEntries {
  /** The Piscina task file of thread mode. */
  thread: string;
  /** The child process entry of process isolation mode. */
  process: string;
  /** Directories these files lie in, readable by workers besides cadre's dist/ and dependencies. */
  readRoots: readonly string[];
}

/** The `node_modules` directories that the worker's imports resolve into. */
function dependencyRoots(): string[] {
  const require = createRequire(import.meta.url);
  const roots = new Set<string>();
  for (const dep of ['piscina', 'comlink', 'zod', '@anthropic-ai/sdk']) {
    try {
      const resolved = require.resolve(dep);
      const marker = `${path.sep}node_modules${path.sep}`;
      const at = resolved.lastIndexOf(marker);
      if (at >= 0) roots.add(resolved.slice(0, at + marker.length - 1));
    } catch {
      // A dependency that cannot be resolved will fail loudly in the worker instead.
    }
  }
  return [...roots];
}

/** Directories a worker may read: cadre's compiled code and its node_modules. */
export function workerReadRoots(): string[] {
  return [DIST_DIR, ...dependencyRoots()];
}

/** execArgv enabling the permission model with read access to `roots` only. */
export function permissionFlags(roots: readonly string[] = workerReadRoots()): string[] {
  if (major < 20) return [];
  const flag = major >= 22 ? '--permission' : '--experimental-permission';
  // Node 20 matches directory trees with a trailing `*`; 22+ treats a directory as its whole tree.
  // Each root once: Node 20 aborts the whole process (an assertion in its permission tree) when a
  // worker starts with the same --allow-fs-read twice, as a read root that is also dist/ would give.
  const reads = [...new Set(roots)].map(
    (root) => `--allow-fs-read=${major >= 22 ? root : path.join(root, '*')}`,
  );
  return [flag, ...reads, '--no-warnings=ExperimentalWarning'];
}

/** True on Node versions whose Worker exposes getHeapStatistics() for host-side heap sampling. */
export function hostHeapSamplingSupported(): boolean {
  return major >= 24 || (major === 22 && Number(process.versions.node.split('.')[1]) >= 16);
}
