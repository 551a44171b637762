// The text Grep hands the model: the findings in their mode's order and shape, cut at head_limit,
// followed by notices of everything that limited the search (caps, the walk, unreadable files).
import { joinGroups } from './grep-format.js';
import type { GrepMode, GrepSearch } from './grep-search.js';

/** Distinct reasons for unreadable files listed in the result; the rest are counted. */
const MAX_SKIP_REASONS = 5;

/** What the report says besides the findings. */
export interface ReportOptions {
  mode: GrepMode;
  headLimit: number | undefined;
  /** Context lines were asked for (groups are then separated by `--`). */
  context: boolean;
  maxMatches: number;
  maxFiles: number;
  /** The walk found more files than maxFiles. */
  filesTruncated: boolean;
  /** What the host's walk said. */
  walkNotices: readonly string[];
}

type Findings = Pick<GrepSearch, 'groups' | 'entries' | 'mtimes' | 'skipped' | 'capped'>;

/** The search's result text. */
export function grepReport(search: Findings, options: ReportOptions): string {
  const { mode, headLimit } = options;
  let lines = mode === 'content' ? joinGroups(search.groups, options.context) : [...search.entries];
  if (mode === 'files_with_matches') lines.sort(newestFirst(search.mtimes));
  const notices: string[] = [];
  if (headLimit !== undefined && lines.length > headLimit) {
    lines = lines.slice(0, headLimit);
    notices.push(`[head_limit ${headLimit} reached: further results omitted]`);
  } else if (search.capped) {
    notices.push(
      `[search stopped at the cap of ${options.maxMatches} results; narrow the pattern, path or glob]`,
    );
  }
  for (const notice of options.walkNotices) notices.push(`[${notice}]`);
  if (options.filesTruncated) {
    notices.push(`[only the first ${options.maxFiles} files were searched; narrow the path or glob]`);
  }
  const unreadable = unreadableNotice(search.skipped);
  if (unreadable !== undefined) notices.push(unreadable);
  return shape(mode, lines, notices.length > 0 ? `\n${notices.join('\n')}` : '');
}

/** Orders paths newest first, then by path. */
function newestFirst(mtimes: ReadonlyMap<string, number>): (a: string, b: string) => number {
  return (a, b) => (mtimes.get(b) ?? 0) - (mtimes.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The files not searched, by reason (binary files are skipped silently, as ripgrep does). */
function unreadableNotice(skipped: ReadonlyMap<string, number>): string | undefined {
  const unreadable = [...skipped].filter(([reason]) => !/binary/i.test(reason));
  if (unreadable.length === 0) return undefined;
  const shown = unreadable.slice(0, MAX_SKIP_REASONS).map(([reason, n]) => `${n} file(s): ${reason}`);
  if (unreadable.length > MAX_SKIP_REASONS)
    shown.push(`${unreadable.length - MAX_SKIP_REASONS} other reasons`);
  return `[not searched: ${shown.join('; ')}]`;
}

/** The lines in their mode's shape, then `tail`. */
function shape(mode: GrepMode, lines: readonly string[], tail: string): string {
  if (lines.length === 0)
    return (mode === 'files_with_matches' ? 'No files found' : 'No matches found') + tail;
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  if (mode === 'files_with_matches') return `Found ${files(lines.length)}\n${lines.join('\n')}${tail}`;
  if (mode === 'count') {
    const total = lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1)), 0);
    return `${lines.join('\n')}\n\nFound ${total} matching line${total === 1 ? '' : 's'} across ${files(lines.length)}.${tail}`;
  }
  return lines.join('\n') + tail;
}
