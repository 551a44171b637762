// Grep's findings and report as pure functions over handed-in batches: modes, the type filter,
// early stops, skip reasons grouped by gist, ordering, head_limit and the notices that follow.
import { describe, expect, it } from 'vitest';
import type { FsReadManyResult } from '../../../src/shared/capabilities.js';
import { grepReport, type ReportOptions } from '../../../src/worker/tools/grep-report.js';
import { GrepSearch, skipGist, type SearchPlan } from '../../../src/worker/tools/grep-search.js';

const plan = (over: Partial<SearchPlan> = {}): SearchPlan => ({
  mode: 'files_with_matches',
  regex: /needle/,
  multiline: false,
  format: { before: 0, after: 0, lineNumbers: true },
  wanted: 100,
  maxMatches: 100,
  ...over,
});

const batch = (
  files: Record<string, string>,
  skipped: FsReadManyResult['skipped'] = [],
): FsReadManyResult => ({
  files: Object.entries(files).map(([path, content], i) => ({ path, content, mtimeMs: 1_000 + i })),
  skipped,
});

const options = (over: Partial<ReportOptions> = {}): ReportOptions => ({
  mode: 'files_with_matches',
  headLimit: undefined,
  context: false,
  maxMatches: 100,
  maxFiles: 5_000,
  filesTruncated: false,
  walkNotices: [],
  ...over,
});

const FILES = { 'a.ts': 'needle\nhay\nneedle\n', 'b.md': 'hay\n', 'c.ts': 'one needle\n' };

describe('GrepSearch', () => {
  it('lists matching files, counts lines and shows content per mode', () => {
    const files = new GrepSearch(plan());
    expect(files.consume(batch(FILES))).toBe(false);
    expect(files.entries).toEqual(['a.ts', 'c.ts']);
    expect([...files.mtimes]).toEqual([
      ['a.ts', 1_000],
      ['c.ts', 1_002],
    ]);
    const count = new GrepSearch(plan({ mode: 'count' }));
    count.consume(batch(FILES));
    expect(count.entries).toEqual(['a.ts:2', 'c.ts:1']);
    expect(count.matchedLines).toBe(3);
    const content = new GrepSearch(plan({ mode: 'content' }));
    content.consume(batch(FILES));
    expect(content.groups.flat()).toEqual(['a.ts:1:needle', 'a.ts:3:needle', 'c.ts:1:one needle']);
  });

  it('stops once it has what it wants, and reports reaching the cap', () => {
    const content = new GrepSearch(plan({ mode: 'content', wanted: 2, maxMatches: 2 }));
    expect(content.consume(batch(FILES))).toBe(true);
    expect(content.matchedLines).toBe(2);
    expect(content.capped).toBe(true);
    // files_with_matches is sorted after the whole walk: only the cap stops it.
    const files = new GrepSearch(plan({ wanted: 1, maxMatches: 5 }));
    expect(files.consume(batch(FILES))).toBe(false);
    expect(files.capped).toBe(false);
  });

  it('skips files without the literal and files outside the type, counting unreadable ones by gist', () => {
    const search = new GrepSearch(plan({ literal: 'needle', typeGlobs: ['*.ts'] }));
    search.consume(
      batch({ 'a.ts': 'needle', 'x.md': 'needle' }, [
        { path: 'big.ts', reason: 'too large (99 bytes, over 10)' },
        { path: 'huge.ts', reason: 'too large (100 bytes, over 10)' },
        { path: 'doc.md', reason: 'too large (5 bytes)' },
        { path: 'd.ts', reason: 'reading d.ts: permission denied' },
      ]),
    );
    expect(search.entries).toEqual(['a.ts']);
    expect([...search.skipped]).toEqual([
      ['too large', 2],
      ['permission denied', 1],
    ]);
  });

  it('reduces a skip reason to its gist', () => {
    expect(skipGist('a/b.js', 'reading a/b.js: matches a denied rule (deny Read a/**)')).toBe(
      'matches a denied rule',
    );
    expect(skipGist('a', 'reading other: boom')).toBe('reading other: boom');
  });
});

describe('grepReport', () => {
  const found = (mode: SearchPlan['mode'], files: Record<string, string> = FILES) => {
    const search = new GrepSearch(plan({ mode }));
    search.consume(batch(files));
    return search;
  };

  it('orders files newest first, then by path', () => {
    const search = found('files_with_matches');
    expect(grepReport(search, options())).toBe('Found 2 files\nc.ts\na.ts');
    search.mtimes.set('a.ts', 1_002);
    expect(grepReport(search, options())).toBe('Found 2 files\na.ts\nc.ts');
  });

  it('totals counts and says when nothing matched, in each mode', () => {
    expect(grepReport(found('count'), options({ mode: 'count' }))).toBe(
      'a.ts:2\nc.ts:1\n\nFound 3 matching lines across 2 files.',
    );
    expect(grepReport(found('count', { 'a.ts': 'needle' }), options({ mode: 'count' }))).toBe(
      'a.ts:1\n\nFound 1 matching line across 1 file.',
    );
    expect(grepReport(found('files_with_matches', {}), options())).toBe('No files found');
    expect(grepReport(found('content', {}), options({ mode: 'content' }))).toBe('No matches found');
  });

  it('cuts at head_limit and lists every limit the search met', () => {
    const search = found('content');
    search.skipped.set('binary file', 4);
    for (let i = 0; i < 7; i++) search.skipped.set(`reason ${i}`, i + 1);
    const text = grepReport(
      search,
      options({
        mode: 'content',
        headLimit: 2,
        filesTruncated: true,
        maxFiles: 10,
        walkNotices: ['walk out of time'],
      }),
    );
    expect(text.split('\n')).toEqual([
      'a.ts:1:needle',
      'a.ts:3:needle',
      '[head_limit 2 reached: further results omitted]',
      '[walk out of time]',
      '[only the first 10 files were searched; narrow the path or glob]',
      '[not searched: 1 file(s): reason 0; 2 file(s): reason 1; 3 file(s): reason 2; 4 file(s): reason 3; 5 file(s): reason 4; 2 other reasons]',
    ]);
  });

  it('notes the cap when head_limit did not cut', () => {
    const search = new GrepSearch(plan({ mode: 'content', wanted: 1, maxMatches: 1 }));
    search.consume(batch(FILES));
    expect(grepReport(search, options({ mode: 'content', maxMatches: 1 }))).toBe(
      'a.ts:1:needle\n[search stopped at the cap of 1 results; narrow the pattern, path or glob]',
    );
  });
});
