// Pure scanners for the quoting forms whose body is not itself shell syntax: `$'...'` strings,
// backtick bodies and here-document bodies. Each reads from an index and says where it stopped.

/** A scanned span: its decoded text, the index after it, and whether it was properly closed. */
export interface Scanned {
  value: string;
  end: number;
  closed: boolean;
}

const ANSI_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  v: '\v',
};

/** Decodes `$'...'` whose `$` is at `start`. */
export function scanAnsiC(src: string, start: number): Scanned {
  let value = '';
  let i = start + 2;
  while (i < src.length) {
    const c = src[i] ?? '';
    if (c === "'") return { value, end: i + 1, closed: true };
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const next = src[i + 1] ?? '';
    const hex = /^x([0-9A-Fa-f]{1,2})/.exec(src.slice(i + 1, i + 4));
    const oct = /^[0-7]{1,3}/.exec(src.slice(i + 1, i + 4));
    if (hex) {
      value += String.fromCharCode(parseInt(hex[1] ?? '0', 16));
      i += 1 + hex[0].length;
    } else if (oct) {
      value += String.fromCharCode(parseInt(oct[0], 8));
      i += 1 + oct[0].length;
    } else {
      value += ANSI_ESCAPES[next] ?? `\\${next}`;
      i += 2;
    }
  }
  return { value, end: src.length, closed: false };
}

/** Reads a backtick body whose opening backtick is at `start`, undoing the escapes bash undoes. */
export function scanBackticks(src: string, start: number): Scanned {
  let value = '';
  for (let j = start + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\\' && j + 1 < src.length) {
      const next = src[j + 1] ?? '';
      value += '$`\\'.includes(next) ? next : `\\${next}`;
      j++;
      continue;
    }
    if (c === '`') return { value, end: j + 1, closed: true };
    value += c;
  }
  return { value, end: src.length, closed: false };
}

/** A here-document waiting for its body. */
export interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
}

/**
 * Skips a here-document body that starts at `start` (the line after its `<<`). `value` is empty;
 * `substitutes` says whether an unquoted body runs `$(...)` or backticks.
 */
export function skipHeredoc(
  src: string,
  start: number,
  doc: PendingHeredoc,
): Scanned & { substitutes: boolean } {
  let i = start;
  let substitutes = false;
  while (i < src.length) {
    const nl = src.indexOf('\n', i);
    let line = src.slice(i, nl === -1 ? src.length : nl);
    i = nl === -1 ? src.length : nl + 1;
    if (doc.stripTabs) line = line.replace(/^\t+/, '');
    if (line === doc.delimiter) return { value: '', end: i, closed: true, substitutes };
    if (!doc.quoted && (line.includes('$(') || line.includes('`'))) substitutes = true;
  }
  return { value: '', end: src.length, closed: false, substitutes };
}
