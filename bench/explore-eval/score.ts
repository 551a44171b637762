// Scoring, the same for every system: a report's answer is the order in which it cites files as
// `path:line`; hit@1 is "the first cited file answers the question", hit@3 "one of the first three
// distinct files does", cited "some citation anywhere does".

/** One system's outcome on one question. */
export interface Score {
  hit1: boolean;
  hit3: boolean;
  cited: boolean;
}

/** A `path:line` (or `path:line-line`) citation, in backticks or bare, after a space or an opening mark. */
const CITATION = /(?:^|[\s(`'"[])((?:\.{0,2}\/)?[\w@$+~-][\w@$+~./-]*):(\d+)(?:-\d+)?(?=[`'")\]\s:,.;]|$)/gm;

/** The distinct files a report cites as `path:line`, in the order it first cites them. */
export function citedFiles(report: string, root?: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of report.matchAll(CITATION)) {
    const file = normalise(m[1] ?? '', root);
    if (file === '' || !/[./]/.test(file) || seen.has(file)) continue;
    seen.add(file);
    out.push(file);
  }
  return out;
}

function normalise(file: string, root: string | undefined): string {
  let f = file;
  if (root !== undefined) {
    const prefix = root.endsWith('/') ? root : `${root}/`;
    if (f.startsWith(prefix)) f = f.slice(prefix.length);
  }
  return f.replace(/^\.\//, '');
}

/** Scores a ranked list of files against the accepted answers. */
export function scoreRanking(ranked: readonly string[], answers: readonly string[]): Score {
  const ok = new Set(answers);
  return {
    hit1: ranked.length > 0 && ok.has(ranked[0] ?? ''),
    hit3: ranked.slice(0, 3).some((f) => ok.has(f)),
    cited: ranked.some((f) => ok.has(f)),
  };
}

/** Rates over a list of scores (0 when there are none). */
export function rates(scores: readonly Score[]): { n: number; hit1: number; hit3: number; cited: number } {
  const n = scores.length;
  const rate = (k: keyof Score) => (n === 0 ? 0 : scores.filter((s) => s[k]).length / n);
  return { n, hit1: rate('hit1'), hit3: rate('hit3'), cited: rate('cited') };
}
