// Parses human durations such as `30d`, `12h`, `90m`, `1w`, `45s`, `1d12h` into milliseconds.

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

/** Milliseconds in `text`, or an error message naming what is wrong. */
export function parseDuration(text: string): { ms: number } | { error: string } {
  const input = typeof text === 'string' ? text.trim().toLowerCase() : '';
  const hint = 'use a number and a unit: 30d, 12h, 90m, 45s, 1w (or combined, like 1d12h)';
  if (input === '') return { error: `an empty duration; ${hint}` };
  let total = 0;
  let consumed = 0;
  for (const m of input.matchAll(PART)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? NaN);
    consumed += m[0].length;
  }
  if (consumed !== input.length || consumed === 0) return { error: `"${text}" is not a duration; ${hint}` };
  if (!Number.isFinite(total)) return { error: `"${text}" is too large` };
  return { ms: total };
}
