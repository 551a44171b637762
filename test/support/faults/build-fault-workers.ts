// Builds the test-only workers (fault-thread-entry.ts, fault-process-entry.ts) from source into
// dist-test/, bundled as the shipped workers are (scripts/bundle.mjs): one CommonJS file each, with
// cadre's web shims. Each file is written whole and renamed into place, so a worker never loads a
// half-written bundle.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { FAULT_DIR, FAULT_WORKERS } from './fault-runtime.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/** Builds both test-only workers (about a second; run once per test run or benchmark). */
export async function buildFaultWorkers(): Promise<void> {
  await mkdir(FAULT_DIR, { recursive: true });
  await Promise.all([
    bundle(path.join(import.meta.dirname, 'fault-thread-entry.ts'), FAULT_WORKERS.thread),
    bundle(path.join(import.meta.dirname, 'fault-process-entry.ts'), FAULT_WORKERS.process),
  ]);
}

async function bundle(entry: string, outfile: string): Promise<void> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    write: false,
    outfile,
    inject: [path.join(ROOT, 'src', 'worker', 'models', 'web-shims.ts')],
    define: { 'import.meta.url': '__cadreModuleUrl' },
    banner: { js: "var __cadreModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  const [file] = result.outputFiles;
  if (file === undefined) throw new Error(`esbuild wrote nothing for ${entry}`);
  const temp = `${outfile}.${process.pid}.tmp`;
  await writeFile(temp, file.contents);
  await rename(temp, outfile);
}
