// The Grep tool: ripgrep-like content search whose regex runs here in the worker (where the
// host's deadline can kill a runaway pattern). The host only finds and reads files (fs.readMany
// with a glob: walked, judged and read in one pass; fs.stat for a named path); matching, context
// and output shaping happen in this thread.
import type * as z from 'zod';
import type { FsReadManyResult } from '../../shared/capabilities.js';
import { GrepInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import { formatFileContent, joinGroups } from './grep-format.js';
import { compilePattern, countMatchingLines, matchText } from './grep-match.js';
import { FILE_TYPES, globsForType, matchesType, typeSearchGlob } from './grep-types.js';
import { needleFor, visitFiles } from './grep-unpack.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput, toolError, toolText } from './tool.js';

/** Files read per fs.readMany call: few round trips, bounded memory per step. */
export const GREP_READ_CHUNK = 200;
/** Chunks requested ahead of the one being searched. */
const GREP_READ_AHEAD = 3;

/** Distinct reasons for unreadable files listed in the result; the rest are counted. */
const MAX_SKIP_REASONS = 5;

type GrepArgs = z.infer<typeof GrepInput>;
/** The first batch read (with its files' contents), and the files left to read by name. */
type Candidates =
  | {
      ok: true;
      first: FsReadManyResult | undefined;
      files: string[];
      truncated: boolean;
      /** What the host's walk said (a .gitignore too big to use whole, a walk out of time). */
      notices: string[];
    }
  | { ok: false; result: ToolResult };

const DESCRIPTION = `A powerful search tool modelled on ripgrep.

Usage:
- Always use Grep for content searches; never run grep or rg through Bash.
- pattern is a regular expression in JavaScript syntax, close to ripgrep's: "log.*Error", "function\\s+\\w+". Escape literal braces and parentheses: "interface\\{\\}" finds interface{}.
- Filter files with glob (e.g. "*.js", "**/*.{ts,tsx}"; a glob without "/" matches file names at any depth) or type (ripgrep type names: js, ts, py, rust, go, java, md, json, yaml, c, cpp, sh, ...). type is more efficient than glob for standard file types.
- path is a directory (default: the project) or a single file. Files ignored by .gitignore are skipped, and so are binary files.
- output_mode: "files_with_matches" (default) lists matching files, most recently modified first; "content" shows matching lines as path:line:text, files in path order (use -n false to drop line numbers, -A/-B/-C for context lines after/before/around); "count" shows path:count of matching lines.
- -i searches case-insensitively. head_limit keeps only the first N entries (lines, files or counts) of the output.
- Patterns match within single lines by default. For patterns that span lines (e.g. "struct \\{[\\s\\S]*?field"), set multiline: true; then "." also matches newlines.
- For an open-ended search needing several rounds, delegate to a subagent with Task if you have it.`;

/** A glob without `/` matches base names at any depth, as ripgrep's --glob does. */
function recursiveGlob(glob: string): string {
  return glob.includes('/') ? glob : `**/${glob}`;
}

async function listCandidates(
  ctx: ToolContext,
  input: GrepArgs,
  typeGlobs?: readonly string[],
): Promise<Candidates> {
  const { path, glob } = input;
  if (path !== undefined) {
    const stat = await callCapability(ctx, 'fs.stat', { path });
    if (!stat.ok) return { ok: false, result: capabilityFailure(stat.error) };
    if (!stat.value.exists || stat.value.type === 'missing') {
      return { ok: false, result: toolError(`not_found: path ${path} does not exist.`) };
    }
    // An explicitly named file is searched whatever glob and type say, as ripgrep does.
    if (stat.value.type === 'file')
      return { ok: true, first: undefined, files: [path], truncated: false, notices: [] };
  }
  const pattern = glob !== undefined ? recursiveGlob(glob) : typeGlobs ? typeSearchGlob(typeGlobs) : '**/*';
  const limit = ctx.limits.maxGrepFiles;
  // One call: the host walks, judges and reads in one pass, in path order (files_with_matches is
  // put newest first from the reads' mtimes); what did not fit in its byte budget comes back by name.
  const first = await callCapability(ctx, 'fs.readMany', {
    paths: [],
    glob: path === undefined ? { pattern, limit } : { pattern, path, limit },
    packed: true,
  });
  if (!first.ok) return { ok: false, result: capabilityFailure(first.error) };
  const rest = first.value.deferred ?? [];
  const files = typeGlobs ? rest.filter((f) => matchesType(f, typeGlobs)) : rest;
  return {
    ok: true,
    first: first.value,
    files,
    truncated: first.value.truncated ?? false,
    notices: first.value.notices ?? [],
  };
}

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('Grep', GrepInput, input);
  if (!parsed.ok) return parsed.result;
  const data = parsed.data;
  const mode = data.output_mode ?? 'files_with_matches';
  const multiline = data.multiline ?? false;
  const compiled = compilePattern(data.pattern, { ignoreCase: data['-i'] ?? false, multiline });
  if (!compiled.ok)
    return toolError(`invalid_input: pattern is not a valid regular expression: ${compiled.message}`);
  let typeGlobs: readonly string[] | undefined;
  if (data.type !== undefined) {
    typeGlobs = globsForType(data.type);
    if (!typeGlobs) {
      return toolError(
        `invalid_input: type: unknown file type "${data.type}". Known types: ${Object.keys(FILE_TYPES).join(', ')}.`,
      );
    }
  }
  const candidates = await listCandidates(ctx, data, typeGlobs);
  if (!candidates.ok) return candidates.result;

  const before = data['-B'] ?? data['-C'] ?? 0;
  const after = data['-A'] ?? data['-C'] ?? 0;
  const format = { before, after, lineNumbers: data['-n'] ?? true };
  const headLimit = data.head_limit;
  // Search one entry past head_limit, so the result can say truthfully whether more exist.
  const wanted = Math.min(ctx.limits.maxGrepMatches, headLimit === undefined ? Infinity : headLimit + 1);
  const groups: string[][] = [];
  const entries: string[] = [];
  const mtimes = new Map<string, number>();
  let matchedLines = 0;
  const skipped = new Map<string, number>();

  const files = candidates.files;
  const needle = needleFor(compiled.literal);
  /** Takes in one batch's reads; true when the search has seen enough. */
  const consume = (value: FsReadManyResult): boolean => {
    for (const { path, reason } of value.skipped) {
      if (typeGlobs && !matchesType(path, typeGlobs)) continue;
      // Reasons carry per-file details ("reading a/b.js: matches ...", "too large (1234 bytes, ...)");
      // group by their gist.
      const own = `reading ${path}: `;
      const gist = (reason.startsWith(own) ? reason.slice(own.length) : reason).replace(
        /\s*\([^()]*\)\s*$/,
        '',
      );
      skipped.set(gist, (skipped.get(gist) ?? 0) + 1);
    }
    return visitFiles(
      value,
      (file) => {
        if (typeGlobs && !matchesType(file.path, typeGlobs)) return false;
        const limit =
          mode === 'content' ? wanted - matchedLines : mode === 'files_with_matches' ? 1 : Infinity;
        // Plain text missing from the whole file is missing from every line.
        if (compiled.literal !== undefined && !file.content.includes(compiled.literal)) return false;
        if (mode === 'content') {
          const found = matchText(file.content, compiled.regex, multiline, limit);
          if (found.matched.length === 0) return false;
          matchedLines += found.matched.length;
          groups.push(...formatFileContent(file.path, found.lines, found.matched, format));
        } else {
          const count = countMatchingLines(file.content, compiled.regex, multiline, limit);
          if (count === 0) return false;
          if (file.mtimeMs !== undefined) mtimes.set(file.path, file.mtimeMs);
          matchedLines += count;
          entries.push(mode === 'count' ? `${file.path}:${count}` : file.path);
        }
        // files_with_matches is ordered by mtime once every file is seen, so only the cap stops it early.
        const stopAt = mode === 'files_with_matches' ? ctx.limits.maxGrepMatches : wanted;
        return (mode === 'content' ? matchedLines : entries.length) >= stopAt;
      },
      needle,
    );
  };
  const done = candidates.first !== undefined && consume(candidates.first);
  const read = (start: number) => {
    if (start >= files.length) return undefined;
    const pending = callCapability(ctx, 'fs.readMany', {
      paths: files.slice(start, start + GREP_READ_CHUNK),
      packed: true,
    });
    // A search that stops early leaves the last request unread; its failure is nobody's concern.
    pending.catch(() => undefined);
    return pending;
  };
  // Files left over (past the first call's byte budget, or a named file) are read by name, the
  // next chunks requested before this one is searched: the host reads them meanwhile.
  const ahead = done ? [] : Array.from({ length: GREP_READ_AHEAD }, (_, i) => read(i * GREP_READ_CHUNK));
  search: for (let start = 0; !done && start < files.length; start += GREP_READ_CHUNK) {
    if (ctx.signal?.aborted) return toolError('cancelled: the search was cancelled.');
    let batch = await ahead.shift()!;
    ahead.push(read(start + GREP_READ_AHEAD * GREP_READ_CHUNK));
    // A batch holds a bounded number of bytes; what did not fit (the tail) is asked for again.
    for (;;) {
      if (!batch.ok) return capabilityFailure(batch.error);
      if (consume(batch.value)) break search;
      const rest = batch.value.deferred ?? [];
      if (rest.length === 0) break;
      batch = await callCapability(ctx, 'fs.readMany', { paths: rest, packed: true });
    }
  }

  if (mode === 'files_with_matches') {
    entries.sort((a, b) => (mtimes.get(b) ?? 0) - (mtimes.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  }
  let lines = mode === 'content' ? joinGroups(groups, before > 0 || after > 0) : entries;
  const notices: string[] = [];
  const capped = (mode === 'content' ? matchedLines : entries.length) >= ctx.limits.maxGrepMatches;
  if (headLimit !== undefined && lines.length > headLimit) {
    lines = lines.slice(0, headLimit);
    notices.push(`[head_limit ${headLimit} reached: further results omitted]`);
  } else if (capped) {
    notices.push(
      `[search stopped at the cap of ${ctx.limits.maxGrepMatches} results; narrow the pattern, path or glob]`,
    );
  }
  for (const notice of candidates.notices) notices.push(`[${notice}]`);
  if (candidates.truncated) {
    notices.push(`[only the first ${ctx.limits.maxGrepFiles} files were searched; narrow the path or glob]`);
  }
  const unreadable = [...skipped].filter(([reason]) => !/binary/i.test(reason));
  if (unreadable.length > 0) {
    const shown = unreadable.slice(0, MAX_SKIP_REASONS).map(([reason, n]) => `${n} file(s): ${reason}`);
    if (unreadable.length > MAX_SKIP_REASONS)
      shown.push(`${unreadable.length - MAX_SKIP_REASONS} other reasons`);
    notices.push(`[not searched: ${shown.join('; ')}]`);
  }

  const tail = notices.length > 0 ? `\n${notices.join('\n')}` : '';
  if (lines.length === 0)
    return toolText((mode === 'files_with_matches' ? 'No files found' : 'No matches found') + tail);
  if (mode === 'files_with_matches')
    return toolText(`Found ${lines.length} file${lines.length === 1 ? '' : 's'}\n${lines.join('\n')}${tail}`);
  if (mode === 'count') {
    const total = lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1)), 0);
    return toolText(
      `${lines.join('\n')}\n\nFound ${total} matching line${total === 1 ? '' : 's'} across ${lines.length} file${lines.length === 1 ? '' : 's'}.${tail}`,
    );
  }
  return toolText(lines.join('\n') + tail);
}

/** The Grep tool. */
export const grepTool: Tool = defineTool({
  name: 'Grep',
  description: DESCRIPTION,
  input: GrepInput,
  descriptions: {
    pattern: 'The regular expression to search file contents for.',
    path: 'File or directory to search, absolute or relative to the project directory. Defaults to the project.',
    glob: 'Glob that file paths must match, e.g. "*.js" or "src/**/*.{ts,tsx}" (rg --glob).',
    type: 'File type to search, e.g. js, ts, py, rust, go, java, md, json, yaml (rg --type).',
    output_mode:
      'files_with_matches (default): matching file paths; content: matching lines; count: matches per file.',
    '-i': 'Case-insensitive search (rg -i).',
    '-n': 'Show line numbers in content output (rg -n). Default true; content mode only.',
    '-A': 'Lines of context after each match (rg -A). Content mode only.',
    '-B': 'Lines of context before each match (rg -B). Content mode only.',
    '-C': 'Lines of context before and after each match (rg -C). Content mode only.',
    head_limit: 'Keep only the first N entries of the output (lines, files or counts), like "| head -N".',
    multiline:
      'Let the pattern span lines, with "." matching newlines (rg -U --multiline-dotall). Default false.',
  },
  run,
});
