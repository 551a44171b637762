// Claude Code's second reading of front matter that is not valid YAML: single-line `key: value`
// lines whose value holds YAML syntax (`: `, `#`, `[`, `*`, ...) are quoted and the text is parsed
// again. Its own generator wrote descriptions such as `description: Use this agent when: ...`, which
// only this reading accepts.
//
// Quoting makes lines that only continued a multi-line description (`user: "..."` in a pasted
// example) into keys of their own, often repeated: the retry lets a repeated metadata key's last
// value stand. cadre accepts the retry only when it cannot change what the agent is or may do:
// `name` and `description` must appear once, and every security-relevant field must appear at
// most once and read exactly as a strict parse of that field's own lines reads it (those lines
// are never rewritten). Otherwise the file is refused as invalid YAML.
import { parseYaml, type YamlProblem } from './yaml-strict.js';

/** Fields that say which agent a file is: the quote retry must not find them twice. */
const IDENTITY_FIELDS: readonly string[] = ['name', 'description'];

/** Fields that decide what an agent may do: the quote retry must leave each exactly as written. */
export const SECURITY_FIELDS: readonly string[] = [
  'tools',
  'disallowedTools',
  'permissionMode',
  'profile',
  'model',
  'isolation',
  'maxDepth',
];

// Claude Code's rule for what needs quoting: flow and anchor indicators, a comment, a tag, block
// scalar indicators, reserved characters, and `: ` (a colon that would start a nested mapping).
const SIMPLE_LINE = /^([a-zA-Z_-]+):\s+(.+)$/;
const NEEDS_QUOTES = /[{}[\]*&#!|>%@`]|: /;

/** The outcome of the retry. */
export type RetryResult = { ok: true; data: unknown; quoted: string[] } | { ok: false; message: string };

/** Quotes what Claude Code would quote (never a security-relevant line); returns the text and the keys quoted. */
function quoteValues(yamlText: string): { text: string; quoted: string[] } {
  const quoted: string[] = [];
  const lines = yamlText.split('\n').map((line) => {
    const match = SIMPLE_LINE.exec(line);
    const key = match?.[1];
    const value = match?.[2];
    if (key === undefined || value === undefined || SECURITY_FIELDS.includes(key)) return line;
    const isQuoted =
      (value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"));
    if (isQuoted || !NEEDS_QUOTES.test(value)) return line;
    quoted.push(key);
    return `${key}: "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return { text: lines.join('\n'), quoted };
}

/** Reads `yamlText` (which failed with `problem`) the way Claude Code retries it, or says why not. */
export function retryQuoted(yamlText: string, problem: YamlProblem): RetryResult {
  const invalid = `invalid YAML: ${problem.message}`;
  const { text, quoted } = quoteValues(yamlText);
  if (quoted.length === 0) return { ok: false, message: invalid };
  const retry = parseYaml(text, { duplicateKeys: true });
  if ('problem' in retry) return { ok: false, message: invalid };
  const data = retry.value;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return { ok: false, message: invalid };
  const counts = new Map<string, number>();
  for (const { key } of segments(text)) if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  const repeated = IDENTITY_FIELDS.find((f) => (counts.get(f) ?? 0) > 1);
  if (repeated !== undefined)
    return {
      ok: false,
      message: `${invalid}; read with quoted values "${repeated}" appears twice, so the file is refused: fix the YAML`,
    };

  const strict = strictFieldReadings(yamlText);
  for (const field of SECURITY_FIELDS) {
    const retried = Object.hasOwn(data, field) ? (data as Record<string, unknown>)[field] : undefined;
    const reading = strict.get(field);
    const same =
      reading === undefined
        ? retried === undefined
        : reading !== UNREADABLE && JSON.stringify(reading.value) === JSON.stringify(retried);
    if (!same) {
      return {
        ok: false,
        message: `${invalid}; read with quoted values (as Claude Code reads it) "${field}" would not be what a strict reading gives, so the file is refused: fix the YAML`,
      };
    }
  }
  return { ok: true, data, quoted };
}

const UNREADABLE = Symbol('unreadable');

/**
 * The top-level entries of front matter text: a line at column 0 (not a comment or `- item`) and
 * the indented, blank, comment and `- item` lines after it. `key` is the entry's plain or quoted key.
 */
function segments(text: string): { key: string | undefined; text: string }[] {
  const lines = text.split('\n');
  const starts: number[] = [];
  lines.forEach((line, index) => {
    if (/^[^\s#-]/.test(line) || /^-[^\s-]/.test(line)) starts.push(index);
  });
  return starts.map((start, i) => {
    const segment = lines.slice(start, starts[i + 1] ?? lines.length).join('\n');
    return { key: /^(["']?)([^\s"':#][^"':]*?)\1\s*:/.exec(segment)?.[2], text: segment };
  });
}

/**
 * The strict reading of each security-relevant field, from its own lines alone. A field whose
 * lines do not parse on their own, or that appears twice, is UNREADABLE.
 */
function strictFieldReadings(yamlText: string): Map<string, { value: unknown } | typeof UNREADABLE> {
  const readings = new Map<string, { value: unknown } | typeof UNREADABLE>();
  for (const segment of segments(yamlText)) {
    const field = SECURITY_FIELDS.find((f) => f === segment.key);
    if (field === undefined) continue;
    const parsed = parseYaml(segment.text);
    const value =
      'problem' in parsed ||
      typeof parsed.value !== 'object' ||
      parsed.value === null ||
      Object.keys(parsed.value).length !== 1 ||
      !Object.hasOwn(parsed.value, field)
        ? UNREADABLE
        : { value: (parsed.value as Record<string, unknown>)[field] };
    readings.set(field, readings.has(field) ? UNREADABLE : value);
  }
  return readings;
}
