// The one strict YAML reading agent front matter gets: the core schema (no custom tags, so no code
// runs and no object is built from a tag), unique keys, and a cap on aliases (no billion laughs).
import YAML from 'yaml';

/** A YAML problem: the message and the 1-based line of the text parsed. */
export interface YamlProblem {
  message: string;
  line?: number;
}

/**
 * Parses YAML strictly: the core schema, unique keys (unless `duplicateKeys` lets a repeated key's
 * last value stand), no custom tags, at most 50 aliases. Never throws; a problem names its line in
 * `source`.
 */
export function parseYaml(
  source: string,
  options: { duplicateKeys?: boolean } = {},
): { value: unknown } | { problem: YamlProblem } {
  const doc = YAML.parseDocument(source, {
    schema: 'core',
    resolveKnownTags: false,
    uniqueKeys: options.duplicateKeys !== true,
    prettyErrors: true,
    strict: true,
  });
  const problem = doc.errors[0] ?? doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (problem) {
    const line = problem.linePos?.[0].line;
    const what =
      problem.code === 'TAG_RESOLVE_FAILED'
        ? `custom YAML tags are not supported (${firstLine(problem.message)})`
        : firstLine(problem.message);
    return { problem: line === undefined ? { message: what } : { message: what, line } };
  }
  try {
    return { value: doc.toJS({ maxAliasCount: 50 }) as unknown };
  } catch (error) {
    return { problem: { message: error instanceof Error ? error.message : String(error) } };
  }
}

// yaml's pretty messages append " at line N, column M:" and a code excerpt; the line is reported separately.
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
