// The project's layout, from one listing of its top directory: where its own source lives (src/,
// packages/, lib/), so that the definition search reads that and not the compiled copies, tests,
// docs and playgrounds beside it; and whether it has a package.json to read.
import type { ToolRecord } from './conversation.js';

/** What the top directory says. */
export interface Layout {
  /** The directory holding the project's own source, when it follows a convention for one. */
  sourceRoot?: string;
  /** A package.json sits at the top. */
  manifest: boolean;
}

/** The listing of the top directory, asked for before anything else. */
export const LAYOUT_INPUT = { path: '.' } as const;

/** Conventional homes of a project's source, most telling first (lib/ is often src/ compiled). */
const SOURCE_ROOTS = ['src', 'packages', 'lib', 'source', 'app'];

/** The layout an LS of the top directory shows, or undefined when there is none (or it failed). */
export function layoutOf(records: readonly ToolRecord[]): Layout | undefined {
  const record = records.find(
    (r) => r.name === 'LS' && JSON.stringify(r.input) === JSON.stringify(LAYOUT_INPUT),
  );
  if (record === undefined || record.isError) return undefined;
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const line of record.content.split('\n')) {
    const m = /^\s+- (.+?)(\/)?(?: \(\d+ bytes\))?$/.exec(line);
    if (m?.[1] === undefined) continue;
    (m[2] === '/' ? dirs : files).add(m[1]);
  }
  const sourceRoot = SOURCE_ROOTS.find((d) => dirs.has(d));
  const layout: Layout = { manifest: files.has('package.json') };
  if (sourceRoot !== undefined) layout.sourceRoot = sourceRoot;
  return layout;
}
