// Text an MCP server chose (its stderr, tool names and descriptions) goes to people's terminals in
// notices and listings: control characters are shown as escapes, never sent raw, so a server cannot
// move the cursor, rewrite earlier lines or set the window title.

/** C0 controls other than tab and newline, DEL, and C1 controls (which include the 8-bit CSI). */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
}

/** `text` with every control character but tab and newline written as `\uXXXX`. */
export function printable(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    out += isControl(code) ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
  }
  return out;
}
