// Splits an agent file into its YAML front matter and its Markdown body. gray-matter finds the
// block; the `yaml` package parses it with the core schema, so no custom tags resolve and no code
// runs. gray-matter's other engines (`---js` evaluates JavaScript) are refused before it sees them.
import matter from 'gray-matter';
import YAML from 'yaml';

/** Front matter fields, the body, and where each top-level key sits (1-based file lines). */
export interface SplitFile {
  ok: true;
  data: Record<string, unknown>;
  body: string;
  keyLines: Map<string, number>;
}

/** Why a file could not be split; `line` is 1-based in the file. */
export interface SplitError {
  ok: false;
  message: string;
  line?: number;
}

const NOT_EVALUATED = 'this file was not evaluated';

class FrontmatterRefusal extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

function refuse(language: string): () => never {
  return () => {
    throw new FrontmatterRefusal(refusalText(language));
  };
}

// gray-matter merges these over its defaults, so its own eval-based JavaScript engine is unreachable
// even if the fence check below were ever bypassed.
const REFUSED_ENGINES = {
  javascript: refuse('javascript'),
  js: refuse('js'),
  json: refuse('json'),
  coffee: refuse('coffee'),
};

/** Splits `content` (the whole file). Never throws. */
export function splitFrontmatter(content: string): SplitFile | SplitError {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  const firstLine = (/^[^\n]*/.exec(text)?.[0] ?? '').replace(/\r$/, '');
  if (!firstLine.startsWith('---') || firstLine.startsWith('----')) {
    return {
      ok: false,
      line: 1,
      message:
        'no front matter: the file must start with a line "---", then name and description fields, then "---"',
    };
  }
  const language = firstLine.slice(3).trim();
  if (language !== '' && !/^(yaml|yml)$/i.test(language))
    return { ok: false, line: 1, message: refusalText(language) };
  if (text.indexOf('\n---', firstLine.length) === -1) {
    return { ok: false, line: 1, message: 'front matter is not closed: add a line "---" after the fields' };
  }

  const keyLines = new Map<string, number>();
  // Typed `object` for gray-matter's engine signature; the value is checked right after.
  const yaml = (source: string): object => {
    source.split('\n').forEach((line, index) => {
      const key = /^(["']?)([^\s"':#][^"':]*?)\1\s*:/.exec(line)?.[2];
      if (key !== undefined && !keyLines.has(key)) keyLines.set(key, index + 1);
    });
    return parseYaml(source) as object;
  };
  let parsed: { data: unknown; content: string };
  try {
    parsed = matter(text, {
      language: 'yaml',
      engines: { ...REFUSED_ENGINES, yaml },
    });
  } catch (error) {
    if (error instanceof FrontmatterRefusal) return withLine(error.message, error.line);
    return {
      ok: false,
      line: 1,
      message: `cannot read front matter: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const data = parsed.data ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    return {
      ok: false,
      line: 2,
      message:
        'front matter must be "key: value" fields (name, description, ...), not a list or a single value',
    };
  }
  return { ok: true, data: data as Record<string, unknown>, body: parsed.content, keyLines };
}

function refusalText(language: string): string {
  return `front matter language "${language}" is not supported (YAML only); ${NOT_EVALUATED}`;
}

function withLine(message: string, line: number | undefined): SplitError {
  return line === undefined ? { ok: false, message } : { ok: false, message, line };
}

// The block gray-matter hands over starts with the rest of line 1, so YAML line N is file line N.
function parseYaml(source: string): unknown {
  const doc = YAML.parseDocument(source, {
    schema: 'core',
    resolveKnownTags: false,
    uniqueKeys: true,
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
    throw new FrontmatterRefusal(`invalid YAML: ${what}`, line);
  }
  try {
    return doc.toJS({ maxAliasCount: 50 }) as unknown;
  } catch (error) {
    throw new FrontmatterRefusal(`invalid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// yaml's pretty messages append " at line N, column M:" and a code excerpt; the line is reported separately.
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
