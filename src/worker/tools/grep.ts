// The Grep tool: ripgrep-like content search whose regex runs here in the worker (where the
// host's deadline can kill a runaway pattern). The host only finds and reads files (fs.readMany
// with a glob: walked, judged and read in one pass; fs.stat for a named path); matching, context
// and output shaping happen in this thread.
import type * as z from 'zod';
import { GrepInput } from '../../shared/tools.js';
import { listCandidates, readByName } from './grep-files.js';
import { compilePattern } from './grep-match.js';
import { grepReport } from './grep-report.js';
import { GrepSearch, type SearchPlan } from './grep-search.js';
import { FILE_TYPES, globsForType } from './grep-types.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput, toolError, toolText } from './tool.js';

type GrepArgs = z.infer<typeof GrepInput>;

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

/** The search `data` asks for, or the error result naming what is wrong with it. */
function searchPlan(
  data: GrepArgs,
  limits: ToolContext['limits'],
): { ok: true; plan: SearchPlan } | { ok: false; result: ToolResult } {
  const multiline = data.multiline ?? false;
  const compiled = compilePattern(data.pattern, { ignoreCase: data['-i'] ?? false, multiline });
  if (!compiled.ok) {
    const result = toolError(`invalid_input: pattern is not a valid regular expression: ${compiled.message}`);
    return { ok: false, result };
  }
  const typeGlobs = data.type === undefined ? undefined : globsForType(data.type);
  if (data.type !== undefined && !typeGlobs) {
    const known = Object.keys(FILE_TYPES).join(', ');
    return {
      ok: false,
      result: toolError(`invalid_input: type: unknown file type "${data.type}". Known types: ${known}.`),
    };
  }
  const headLimit = data.head_limit;
  const plan: SearchPlan = {
    mode: data.output_mode ?? 'files_with_matches',
    regex: compiled.regex,
    multiline,
    format: {
      before: data['-B'] ?? data['-C'] ?? 0,
      after: data['-A'] ?? data['-C'] ?? 0,
      lineNumbers: data['-n'] ?? true,
    },
    // Search one entry past head_limit, so the result can say truthfully whether more exist.
    wanted: Math.min(limits.maxGrepMatches, headLimit === undefined ? Infinity : headLimit + 1),
    maxMatches: limits.maxGrepMatches,
  };
  if (compiled.literal !== undefined) plan.literal = compiled.literal;
  if (typeGlobs) plan.typeGlobs = typeGlobs;
  return { ok: true, plan };
}

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('Grep', GrepInput, input);
  if (!parsed.ok) return parsed.result;
  const planned = searchPlan(parsed.data, ctx.limits);
  if (!planned.ok) return planned.result;
  const { plan } = planned;
  const candidates = await listCandidates(ctx, parsed.data, plan.typeGlobs);
  if (!candidates.ok) return candidates.result;
  const search = new GrepSearch(plan);
  const done = candidates.first !== undefined && search.consume(candidates.first);
  if (!done) {
    const failed = await readByName(ctx, candidates.files, (batch) => search.consume(batch));
    if (failed) return failed;
  }
  return toolText(
    grepReport(search, {
      mode: plan.mode,
      headLimit: parsed.data.head_limit,
      context: plan.format.before > 0 || plan.format.after > 0,
      maxMatches: ctx.limits.maxGrepMatches,
      maxFiles: ctx.limits.maxGrepFiles,
      filesTruncated: candidates.truncated,
      walkNotices: candidates.notices,
    }),
  );
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
