// `cat -n` style numbering shared by Read and Edit's snippets: the model quotes these line
// numbers back, so both tools must print them the same way.

/** Longest line shown in full; longer ones are cut so one minified line cannot flood the context. */
const MAX_LINE_CHARS = 2_000;

/** Splits text into lines, dropping the empty piece after a final newline. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Numbers `lines` from `firstLine`: right-aligned number, a tab, the line (cut at MAX_LINE_CHARS). */
export function numberLines(lines: readonly string[], firstLine: number): string {
  return lines
    .map((line, i) => {
      const shown =
        line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line truncated]` : line;
      return `${String(firstLine + i).padStart(6)}\t${shown}`;
    })
    .join('\n');
}
