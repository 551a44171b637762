// The baseline: what a careful developer gets from ripgrep by hand. One search for the question's
// main word as written (fixed string, smart case), skipping tests, docs, examples and build
// output, files ranked by how many matches they hold (ties by path).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The globs a careful user adds to skip tests, docs, examples and build output. */
export const RG_EXCLUDES = [
  '!**/{test,tests,__tests__,spec,specs,__mocks__,fixtures,docs,doc,example,examples,demo,dist,build,bundles,coverage,out}/**',
  '!*.{md,markdown,map}',
  '!*.min.*',
  '!*.{test,spec}.*',
  '!CHANGELOG*',
  '!History*',
];

/** The rg command line for `term`, for the record. */
export function rgArgs(term: string): string[] {
  return [
    '--count-matches',
    '--fixed-strings',
    '--smart-case',
    '--no-messages',
    // The corpora sit in an ignored directory of this repository: only their own ignore files count.
    '--no-ignore-parent',
    ...RG_EXCLUDES.flatMap((g) => ['--glob', g]),
    '--',
    term,
    // A path, or rg reads its standard input.
    '.',
  ];
}

/** Files ranked by rg's match count for `term` in `dir`, and how long rg took. */
export async function rgRanking(dir: string, term: string): Promise<{ ranked: string[]; ms: number }> {
  const started = performance.now();
  let stdout = '';
  try {
    ({ stdout } = await run('rg', rgArgs(term), { cwd: dir, maxBuffer: 64 * 1024 * 1024 }));
  } catch (error) {
    // rg exits 1 when nothing matched; anything else is a real failure.
    if ((error as { code?: unknown }).code !== 1) throw error;
  }
  const ms = performance.now() - started;
  const counts = stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const at = l.lastIndexOf(':');
      return { file: l.slice(0, at).replace(/^\.\//, ''), n: Number(l.slice(at + 1)) };
    });
  counts.sort((a, b) => b.n - a.n || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { ranked: counts.map((c) => c.file), ms };
}
