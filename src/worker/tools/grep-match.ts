// Grep's matching engine: compile the model's regex and find matching lines in a text. It runs
// synchronously on the calling thread by design: a catastrophic pattern such as `(a+)+$` blocks
// this worker, never the host, and the host's deadline terminates the worker.

/** How the pattern is applied. */
export interface MatchOptions {
  ignoreCase: boolean;
  /** The pattern may span lines and `.` matches newlines (ripgrep's `-U --multiline-dotall`). */
  multiline: boolean;
}

/**
 * A compiled pattern, or a message naming why the regex is invalid. `literal` is set when the
 * pattern is plain text matched case-sensitively: a text without it has no matching line, so most
 * files are ruled out with one `includes` instead of a regex test per line.
 */
export type CompiledPattern = { ok: true; regex: RegExp; literal?: string } | { ok: false; message: string };

/** No character that means something in a (non-unicode) JavaScript regex. */
const PLAIN_TEXT = /^[^\\^$.|?*+()[\]{}]+$/;

/** The matches in one text: its lines and the 0-based indexes of matching lines, ascending. */
export interface TextMatches {
  lines: string[];
  matched: number[];
}

// ripgrep (Rust regex) takes leading inline flags such as `(?i)`; JavaScript does not, so they
// become RegExp flags.
const INLINE_FLAGS = /^\(\?([imsx]+)\)/;

/** Compiles `pattern` with JavaScript RegExp syntax (close to ripgrep's for everyday patterns). */
export function compilePattern(pattern: string, options: MatchOptions): CompiledPattern {
  let source = pattern;
  const flags = new Set<string>();
  const inline = INLINE_FLAGS.exec(source);
  if (inline) {
    for (const flag of inline[1] ?? '') if (flag !== 'x') flags.add(flag);
    source = source.slice(inline[0].length);
  }
  if (options.ignoreCase) flags.add('i');
  // ripgrep anchors `^`/`$` at line boundaries in multiline mode too.
  if (options.multiline) for (const flag of 'gms') flags.add(flag);
  try {
    const regex = new RegExp(source, [...flags].join(''));
    return !flags.has('i') && PLAIN_TEXT.test(source)
      ? { ok: true, regex, literal: source }
      : { ok: true, regex };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Start offset of every line in `text`. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 0-based line holding offset `at` (binary search over line starts). */
function lineOf(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Finds the matching lines of `text`, stopping once `limit` lines matched (files_with_matches
 * needs only one). Synchronous on purpose (see the file header).
 */
export function matchText(text: string, regex: RegExp, multiline: boolean, limit = Infinity): TextMatches {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const stripped = lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (!multiline) {
    const matched: number[] = [];
    for (let i = 0; i < stripped.length; i++) {
      regex.lastIndex = 0;
      if (regex.test(stripped[i] ?? '')) matched.push(i);
      if (matched.length >= limit) break;
    }
    return { lines: stripped, matched };
  }
  const starts = lineStarts(text);
  const hit = new Set<number>();
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    const first = lineOf(starts, m.index);
    // A match ending right after a newline does not touch the next line.
    const endAt = m[0].length > 0 ? m.index + m[0].length - 1 : m.index;
    const last = Math.min(lineOf(starts, endAt), stripped.length - 1);
    for (let line = first; line <= last; line++) hit.add(line);
    if (m[0].length === 0) regex.lastIndex++;
    if (hit.size >= limit) break;
  }
  const matched = [...hit].sort((a, b) => a - b).slice(0, limit);
  return { lines: stripped, matched };
}

/**
 * How many lines of `text` match, counting up to `limit`: `matchText(...).matched.length` without
 * building the lines (files_with_matches and count need no more). Synchronous, as `matchText`.
 */
export function countMatchingLines(
  text: string,
  regex: RegExp,
  multiline: boolean,
  limit = Infinity,
): number {
  if (multiline) return matchText(text, regex, true, limit).matched.length;
  let count = 0;
  // Lines as matchText splits them: a final newline does not start another line, and one CR
  // before each newline is not part of the line.
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    regex.lastIndex = 0;
    if (regex.test(text.slice(start, stop)) && ++count >= limit) break;
    start = end + 1;
  }
  return count;
}
