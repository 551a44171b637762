// Reads back what the tools answered, leniently: file lists (Glob, Grep files_with_matches),
// `path:line:text` matches (Grep content) and numbered file text (Read). Whatever a line does not
// fit is skipped rather than guessed at, and every list comes back sorted for determinism.

/** One line of one file. */
export interface LineRef {
  path: string;
  line: number;
  text: string;
}

const NOTE_LINE =
  /^(?:found \d+|no (?:files|matches)|\(|\[|\.\.\.|\u2026|showing|results? (?:truncated|limited))/i;

/** Paths from a file-list output, sorted and deduplicated. */
export function parseFileList(content: string): string[] {
  const out = new Set<string>();
  for (const raw of content.split('\n')) {
    const line = raw.trim();
    if (line === '' || NOTE_LINE.test(line) || line.length > 500) continue;
    out.add(line.replace(/^\.\//, ''));
  }
  return [...out].sort();
}

const CUT =
  /^(?:\[(?:head_limit \d+ reached|search stopped at the cap|only the first \d+ files)|\.\.\. \[output truncated: \d+ more characters)/;

/**
 * Whether a tool's output says it was cut short (so what it lists is a part). Only the notices
 * the tools and the loop append at the end count: a file that quotes them is not cut.
 */
export const isCut = (content: string) =>
  content
    .split('\n')
    .slice(-6)
    .some((line) => CUT.test(line));

/** `path:count` lines from Grep's count mode (the closing "Found N matching lines" is skipped). */
export function parseCounts(content: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const raw of content.split('\n')) {
    const m = /^(.+):(\d+)$/.exec(raw.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) counts.set(m[1].replace(/^\.\//, ''), Number(m[2]));
  }
  return counts;
}

/** `path:line:text` matches from Grep's content mode (context lines, `path-line-text`, are skipped). */
export function parseGrepContent(content: string): LineRef[] {
  const refs: LineRef[] = [];
  for (const raw of content.split('\n')) {
    const m = /^(.+?):(\d+):(.*)$/.exec(raw);
    if (m === null || m[1] === undefined || m[2] === undefined) continue;
    refs.push({ path: m[1].replace(/^\.\//, ''), line: Number(m[2]), text: m[3] ?? '' });
  }
  return refs;
}

/** The lines of a Read output, numbered as the tool numbered them (`  12\ttext`), else from `offset`. */
export function parseReadContent(content: string, path: string, offset = 1): LineRef[] {
  const lines = content.split('\n');
  const numbered = lines.map((l) => /^\s*(\d+)(?:\t|\u2192|\| ?)(.*)$/.exec(l));
  const mostlyNumbered =
    numbered.filter((m) => m !== null).length >= Math.max(1, Math.floor(lines.length / 2));
  if (mostlyNumbered) {
    return numbered.flatMap((m) => (m === null ? [] : [{ path, line: Number(m[1]), text: m[2] ?? '' }]));
  }
  return lines.map((text, i) => ({ path, line: offset + i, text }));
}
