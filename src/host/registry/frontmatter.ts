// Splits an agent file into its YAML front matter and its Markdown body, the way Claude Code reads
// agent files: line endings and a BOM are normalised before anything else, and front matter that
// is not valid YAML is read again with its single-line values quoted (quote-retry.ts), which is
// accepted only when every security-relevant field reads as a strict parse would read it. The
// `yaml` package parses with the core schema, so no custom tag resolves and no code runs; front
// matter in another language (`---js`) is refused without being read.
import { retryQuoted } from './quote-retry.js';
import { parseYaml } from './yaml-strict.js';

/** Front matter fields, the body, and where each top-level key sits (1-based file lines). */
export interface SplitFile {
  ok: true;
  data: Record<string, unknown>;
  body: string;
  keyLines: Map<string, number>;
  /** Set when the fields were read by the quote retry: what the strict reading refused. */
  retried?: { problem: string; line?: number; quoted: string[] };
}

/** Why a file could not be split; `line` is 1-based in the file. */
export interface SplitError {
  ok: false;
  message: string;
  line?: number;
  /** The file has no front matter at all: not an agent definition (a README beside the agents). */
  noFrontmatter?: true;
}

// The closing line: `---`, or a longer run of dashes (Claude Code ends the block at its first `---`).
const CLOSING = /^-{3,}[ \t]*$/;

/** Line endings as `\n` and no byte order mark: what every later step (and every line number) assumes. */
function normaliseText(content: string): string {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
}

/** Splits `content` (the whole file). Never throws. */
export function splitFrontmatter(content: string): SplitFile | SplitError {
  const text = normaliseText(content);
  const firstEnd = text.indexOf('\n');
  const firstLine = firstEnd === -1 ? text : text.slice(0, firstEnd);
  if (!firstLine.startsWith('---') || firstLine.startsWith('----')) {
    return {
      ok: false,
      line: 1,
      noFrontmatter: true,
      message:
        'no front matter: an agent file starts with a line "---", then name and description fields, then "---"',
    };
  }
  const language = firstLine.slice(3).trim();
  if (language !== '' && !/^(yaml|yml)$/i.test(language))
    return { ok: false, line: 1, message: refusalText(language) };

  const lines = text.split('\n');
  const close = lines.findIndex((line, index) => index > 0 && CLOSING.test(line));
  if (close === -1)
    return { ok: false, line: 1, message: 'front matter is not closed: add a line "---" after the fields' };
  // A leading empty line keeps YAML line N equal to file line N in every message.
  const yamlText = `\n${lines.slice(1, close).join('\n')}`;
  const body = lines.slice(close + 1).join('\n');
  const keyLines = topLevelKeyLines(yamlText);

  const strict = parseYaml(yamlText);
  if ('problem' in strict) {
    const retry = retryQuoted(yamlText, strict.problem);
    if (!retry.ok) return withLine(retry.message, strict.problem.line);
    return finish(retry.data, body, keyLines, {
      problem: strict.problem.message,
      quoted: retry.quoted,
      ...(strict.problem.line === undefined ? {} : { line: strict.problem.line }),
    });
  }
  return finish(strict.value, body, keyLines);
}

function finish(
  data: unknown,
  body: string,
  keyLines: Map<string, number>,
  retried?: SplitFile['retried'],
): SplitFile | SplitError {
  const fields = data ?? {};
  if (typeof fields !== 'object' || Array.isArray(fields)) {
    return {
      ok: false,
      line: 2,
      message:
        'front matter must be "key: value" fields (name, description, ...), not a list or a single value',
    };
  }
  const out: SplitFile = { ok: true, data: fields as Record<string, unknown>, body, keyLines };
  if (retried) out.retried = retried;
  return out;
}

function topLevelKeyLines(yamlText: string): Map<string, number> {
  const keyLines = new Map<string, number>();
  yamlText.split('\n').forEach((line, index) => {
    const key = /^(["']?)([^\s"':#][^"':]*?)\1\s*:/.exec(line)?.[2];
    if (key !== undefined && !keyLines.has(key)) keyLines.set(key, index + 1);
  });
  return keyLines;
}

function refusalText(language: string): string {
  return `front matter language "${language.slice(0, 40)}" is not supported (YAML only); this file was not evaluated`;
}

function withLine(message: string, line: number | undefined): SplitError {
  return line === undefined ? { ok: false, message } : { ok: false, message, line };
}
