// What an approval prompt shows beyond its title: the exact command, or the file and a bounded
// diff of what a write changes. Linear in the file's size and capped in what it returns, so a
// huge or hostile file costs the host little; the text is model-controlled and is sanitized where
// it is rendered, not here.

/** Most lines a diff preview shows on each side; the rest is counted. */
const PREVIEW_LINES = 40;
/** Longest line a preview keeps (the rest of a line is cut with a marker). */
const PREVIEW_LINE_CHARS = 300;
/** Largest text a diff is computed over; past it the preview shows the first lines only. */
const PREVIEW_DIFF_CHARS = 2 * 1024 * 1024;
/** Most characters of an input the `d` key shows. */
const DETAIL_CHARS = 20_000;

function clip(line: string): string {
  return line.length > PREVIEW_LINE_CHARS
    ? `${line.slice(0, PREVIEW_LINE_CHARS)}… (+${line.length - PREVIEW_LINE_CHARS} chars)`
    : line;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function side(prefix: '-' | '+', lines: readonly string[], limit: number): string[] {
  const shown = lines.slice(0, limit).map((l) => `${prefix} ${clip(l)}`);
  if (lines.length > limit) shown.push(`${prefix} … ${lines.length - limit} more lines`);
  return shown;
}

/**
 * A unified-style diff of the region that changed between `before` and `after` (undefined: a new
 * file). Common leading and trailing lines are skipped, with their count, so an Edit shows just
 * its replacement; at most PREVIEW_LINES lines are shown per side.
 */
export function writePreview(path: string, before: string | undefined, after: string): string {
  if (after.length > PREVIEW_DIFF_CHARS || (before?.length ?? 0) > PREVIEW_DIFF_CHARS) {
    const head = splitLines(after.slice(0, PREVIEW_LINES * PREVIEW_LINE_CHARS)).slice(0, PREVIEW_LINES);
    return [
      `${path}: ${after.length} chars, too large to diff; the new content begins:`,
      ...side('+', head, PREVIEW_LINES),
    ].join('\n');
  }
  const next = splitLines(after);
  if (before === undefined) {
    return [
      `new file ${path} (${next.length} lines, ${after.length} chars)`,
      ...side('+', next, PREVIEW_LINES),
    ].join('\n');
  }
  const prev = splitLines(before);
  let head = 0;
  while (head < prev.length && head < next.length && prev[head] === next[head]) head++;
  let tail = 0;
  while (
    tail < prev.length - head &&
    tail < next.length - head &&
    prev[prev.length - 1 - tail] === next[next.length - 1 - tail]
  )
    tail++;
  const removed = prev.slice(head, prev.length - tail);
  const added = next.slice(head, next.length - tail);
  if (removed.length === 0 && added.length === 0)
    return `${path}: no change in content (${next.length} lines)`;
  return [
    `${path} @@ line ${head + 1}: -${removed.length} +${added.length} (${head} lines above and ${tail} below unchanged)`,
    ...side('-', removed, PREVIEW_LINES),
    ...side('+', added, PREVIEW_LINES),
  ].join('\n');
}

/** The whole input of a call for the `d` key, cut at DETAIL_CHARS. */
export function detailOf(input: unknown): string {
  let text: string;
  try {
    text = typeof input === 'string' ? input : (JSON.stringify(input, null, 2) ?? String(input));
  } catch {
    text = String(input);
  }
  return text.length > DETAIL_CHARS
    ? `${text.slice(0, DETAIL_CHARS)}\n… (${text.length - DETAIL_CHARS} more chars)`
    : text;
}

/**
 * A command as a prompt shows it: the first line after `$ `, every further line after `> ` (as a
 * shell's continuation prompt), and the model's description on one line after `# `. Every line
 * carries its marker, so no line of a command (a here-document's, say) can pass for a line of the
 * prompt itself, such as its key row.
 */
export function commandPreview(command: string, extra: readonly string[] = []): string {
  const lines = command.split('\n').map((line, i) => `${i === 0 ? '$' : '>'} ${line}`);
  const notes = extra.map((note) => `# ${note.replace(/\n/g, '\u240a')}`);
  return [...lines, ...notes].join('\n');
}

/**
 * Free text (a subagent's task, a file's new content) as a prompt shows it: every line after `> `,
 * so no line of it can pass for a line of the prompt itself, such as its key row.
 */
export function quoted(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}
