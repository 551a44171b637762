// Small statistics helpers for benchmarks.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The q-quantile (0..1) of numbers. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[at] ?? NaN;
}

/** The median. */
export const median = (values: readonly number[]) => quantile(values, 0.5);

/** Writes a benchmark's JSON result under bench/results/. */
export async function writeResult(name: string, data: unknown): Promise<string> {
  const dir = path.resolve('bench', 'results');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  await writeFile(
    file,
    JSON.stringify({ at: new Date().toISOString(), node: process.version, ...(data as object) }, null, 2) +
      '\n',
  );
  return file;
}
