// The one way cadre cuts a tool's output to a size: keep the start, end with a note that says how
// much was dropped, and stay within the cap so a second pass over the same text changes nothing.

/** Writes the note that ends a cut text, from the characters dropped and the original length. */
export type TruncationNote = (dropped: number, total: number) => string;

/** The default note, which the offline model also recognises as the end of a cut result. */
export const truncationNote: TruncationNote = (dropped, total) =>
  `\n... [output truncated: ${dropped} more characters not shown of ${total}]`;

/**
 * Cuts `text` to at most `max` characters (unless the note alone is longer), ending it with one
 * note. Text within the cap comes back unchanged, so capping capped text is a no-op.
 */
export function capText(text: string, max: number, note: TruncationNote = truncationNote): string {
  if (text.length <= max) return text;
  const marker = note(text.length - max, text.length);
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}
