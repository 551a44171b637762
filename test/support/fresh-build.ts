// Vitest global setup: worker threads, the CLI and the I/O threads run the `dist/` bundles, not
// `src/`, so a test run after an edit would test the old code. When any source the bundles come
// from is newer than the oldest bundle (or a bundle is missing), this rebuilds them first; a
// failed build stops the run with the command to run. After `npm test`'s own build it does nothing.
// Then it builds the test-only workers (faults/build-fault-workers.ts), which are never in dist/.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildFaultWorkers } from './faults/build-fault-workers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What the build reads. */
const INPUTS = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** What the tests run: each bundle `scripts/bundle.mjs` writes, and the package entry. */
export const OUTPUTS = [
  'dist/index.js',
  'dist/worker-bundle/worker.cjs',
  'dist/worker-bundle/process-entry.cjs',
  'dist/host/cli/cadre.cjs',
  'dist/host-bundle/io-thread.cjs',
  'dist/host-bundle/mcp-adapter.cjs',
  'dist/host-bundle/page-thread.cjs',
  'dist/host/ui/chat-ui.mjs',
];

/** The newest modification time under `target` (a file or a directory), in ms. */
function newest(target: string): number {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(target)) latest = Math.max(latest, newest(path.join(target, entry)));
  return latest;
}

/** Why the bundles under `root` are stale, or undefined when they are up to date. */
export function staleReason(root: string): string | undefined {
  let oldest = Infinity;
  for (const output of OUTPUTS) {
    try {
      oldest = Math.min(oldest, statSync(path.join(root, output)).mtimeMs);
    } catch {
      return `${output} is missing`;
    }
  }
  for (const input of INPUTS) {
    const file = path.join(root, input);
    if (newest(file) > oldest) return `${input} changed since the last build`;
  }
  return undefined;
}

/** Rebuilds stale bundles, and builds the test-only workers, before any test file runs. */
export default async function setup(): Promise<void> {
  rebuildIfStale();
  await buildFaultWorkers();
}

function rebuildIfStale(): void {
  const reason = staleReason(ROOT);
  if (reason === undefined) return;
  process.stderr.write(`cadre tests: ${reason}; running npm run build\n`);
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0)
    throw new Error(
      `the dist/ bundles are stale (${reason}) and npm run build failed: fix it and run npm run build`,
    );
}
