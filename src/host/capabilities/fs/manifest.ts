// Which parts of a package.json make tools run code, and whether a write changes them. npm runs
// `scripts` on install, test and publish (lifecycle hooks: preinstall, postinstall, prepare, ...);
// `bin`, `gypfile` and `workspaces` change what an install builds and links; husky (v4),
// simple-git-hooks, pre-commit, lint-staged and nano-staged read git hook commands from their own
// keys; `config` values reach scripts as environment variables. A write that changes any of them
// asks in every mode, like a write to `.husky/`. Pure: it compares two texts.

/** The top-level package.json keys whose value decides what code runs later. */
const MANIFEST_CODE_KEYS: readonly string[] = [
  'scripts',
  'bin',
  'gypfile',
  'workspaces',
  'config',
  'husky',
  'simple-git-hooks',
  'pre-commit',
  'lint-staged',
  'nano-staged',
];

/** Stable text of a JSON value: object keys sorted, so reordering alone is not a change. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The code keys whose value differs between `before` (undefined for a new file) and `after`, in
 * list order; undefined when either text is not a JSON object (what it would run cannot be told).
 */
export function codeKeysChanged(before: string | undefined, after: string): string[] | undefined {
  const next = parseObject(after);
  const prev = before === undefined ? {} : parseObject(before);
  if (next === undefined || prev === undefined) return undefined;
  return MANIFEST_CODE_KEYS.filter(
    (key) =>
      Object.hasOwn(prev, key) !== Object.hasOwn(next, key) || canonical(prev[key]) !== canonical(next[key]),
  );
}
