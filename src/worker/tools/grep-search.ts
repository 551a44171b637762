// One Grep search's findings as batches of files come in: matching lines grouped for `content`,
// or one entry per matching file for `files_with_matches` and `count`, with the files the host
// could not read counted by reason. No I/O: the batches are handed in.
import type { FsReadManyResult } from '../../shared/capabilities.js';
import type { ContentFormat } from './grep-format.js';
import { formatFileContent } from './grep-format.js';
import { countMatchingLines, matchText } from './grep-match.js';
import { matchesType } from './grep-types.js';
import { needleFor, visitFiles, type FileText } from './grep-unpack.js';

/** Grep's output modes. */
export type GrepMode = 'files_with_matches' | 'content' | 'count';

/** What one search looks for and when it has seen enough. */
export interface SearchPlan {
  mode: GrepMode;
  regex: RegExp;
  /** Plain text every match contains, when the pattern has one: files without it are skipped. */
  literal?: string;
  multiline: boolean;
  /** The `type` filter's globs: other files are neither searched nor reported unreadable. */
  typeGlobs?: readonly string[];
  format: ContentFormat;
  /** Matching lines (content) or entries (count) after which the search stops. */
  wanted: number;
  /** The run's cap on results (maxGrepMatches), the only early stop of files_with_matches. */
  maxMatches: number;
}

/** The gist of a skip reason: without the `reading <path>: ` prefix and a trailing `(...)` detail. */
export function skipGist(path: string, reason: string): string {
  const own = `reading ${path}: `;
  return (reason.startsWith(own) ? reason.slice(own.length) : reason).replace(/\s*\([^()]*\)\s*$/, '');
}

/** The findings of one search. */
export class GrepSearch {
  /** content: each file's output lines, in groups of contiguous lines. */
  readonly groups: string[][] = [];
  /** files_with_matches and count: one entry per matching file. */
  readonly entries: string[] = [];
  /** Modification times of matching files, for ordering files_with_matches newest first. */
  readonly mtimes = new Map<string, number>();
  /** Files the host could not read, by the gist of the reason. */
  readonly skipped = new Map<string, number>();
  matchedLines = 0;
  private readonly needle: Uint8Array | undefined;

  constructor(private readonly plan: SearchPlan) {
    this.needle = needleFor(plan.literal);
  }

  /** Takes in one batch's reads; true when the search has seen enough. */
  consume(value: FsReadManyResult): boolean {
    const { typeGlobs } = this.plan;
    for (const { path, reason } of value.skipped) {
      if (typeGlobs && !matchesType(path, typeGlobs)) continue;
      const gist = skipGist(path, reason);
      this.skipped.set(gist, (this.skipped.get(gist) ?? 0) + 1);
    }
    return visitFiles(value, (file) => this.visit(file), this.needle);
  }

  /** True when the results reached the run's cap. */
  get capped(): boolean {
    return (this.plan.mode === 'content' ? this.matchedLines : this.entries.length) >= this.plan.maxMatches;
  }

  /** Searches one file; true when the search has seen enough. */
  private visit(file: FileText): boolean {
    const { mode, regex, literal, multiline, typeGlobs, wanted } = this.plan;
    if (typeGlobs && !matchesType(file.path, typeGlobs)) return false;
    const limit =
      mode === 'content' ? wanted - this.matchedLines : mode === 'files_with_matches' ? 1 : Infinity;
    // Plain text missing from the whole file is missing from every line.
    if (literal !== undefined && !file.content.includes(literal)) return false;
    if (mode === 'content') {
      const found = matchText(file.content, regex, multiline, limit);
      if (found.matched.length === 0) return false;
      this.matchedLines += found.matched.length;
      this.groups.push(...formatFileContent(file.path, found.lines, found.matched, this.plan.format));
    } else {
      const count = countMatchingLines(file.content, regex, multiline, limit);
      if (count === 0) return false;
      if (file.mtimeMs !== undefined) this.mtimes.set(file.path, file.mtimeMs);
      this.matchedLines += count;
      this.entries.push(mode === 'count' ? `${file.path}:${count}` : file.path);
    }
    // files_with_matches is ordered by mtime once every file is seen, so only the cap stops it early.
    const stopAt = mode === 'files_with_matches' ? this.plan.maxMatches : wanted;
    return (mode === 'content' ? this.matchedLines : this.entries.length) >= stopAt;
  }
}
