// Grep's `content` output, shaped like ripgrep's: `path:line:text` for matches, `path-line-text`
// for context lines, and `--` between groups that are not contiguous.

/** Longest line text shown; minified files would otherwise fill the result with one line. */
const MAX_COLUMNS = 500;

/** How content lines are printed. */
export interface ContentFormat {
  before: number;
  after: number;
  lineNumbers: boolean;
}

function cut(text: string): string {
  return text.length > MAX_COLUMNS ? `${text.slice(0, MAX_COLUMNS)} [... line truncated]` : text;
}

/**
 * The output lines for one file's matches (`matched` ascending, 0-based), with context merged
 * into groups. Each group after the first starts with `--` when context is on.
 */
export function formatFileContent(
  path: string,
  lines: readonly string[],
  matched: readonly number[],
  format: ContentFormat,
): string[][] {
  const isMatch = new Set(matched);
  const groups: string[][] = [];
  let group: string[] = [];
  let shownUpTo = -1; // last line index already printed
  for (const index of matched) {
    const from = Math.max(0, index - format.before, shownUpTo + 1);
    const to = Math.min(lines.length - 1, index + format.after);
    if (from > shownUpTo + 1 && group.length > 0) {
      groups.push(group);
      group = [];
    }
    for (let i = from; i <= to; i++) {
      const sep = isMatch.has(i) ? ':' : '-';
      const number = format.lineNumbers ? `${i + 1}${sep}` : '';
      group.push(`${path}${sep}${number}${cut(lines[i] ?? '')}`);
    }
    shownUpTo = Math.max(shownUpTo, to);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Joins groups from all files, with ripgrep's `--` separator between them when context is on. */
export function joinGroups(groups: readonly string[][], withContext: boolean): string[] {
  const out: string[] = [];
  for (const group of groups) {
    if (withContext && out.length > 0) out.push('--');
    out.push(...group);
  }
  return out;
}
