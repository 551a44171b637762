// What kind of file a path is, as far as its name and place tell: source, or one of the kinds a
// search finds first and a developer reads last (tests, docs, changelogs, examples, templates,
// fixtures, generated and vendored code, typings, minified bundles, tooling config). Each kind
// weighs a file's score; a question that names the kind ("the tests for …") lifts the weight.

/** A file's kind. */
export type FileKind =
  'source' | 'test' | 'docs' | 'changelog' | 'example' | 'generated' | 'vendored' | 'typings' | 'tooling';

const RULES: [FileKind, RegExp][] = [
  ['vendored', /(?:^|\/)(?:node_modules|vendors?|third[_-]?party|bower_components)\//i],
  [
    'generated',
    /(?:^|\/)(?:dist|build|out|min|bundles?|umd|cjs|esm|esm5|esm2015|_esm\w*|\.next|\.nuxt|coverage|generated|__generated__)\/|\.(?:min|bundle|prod|umd)\.[a-z]+$|\.(?:map|lock)$|(?:^|\/)package-lock\.json$/i,
  ],
  ['typings', /\.d\.[cm]?ts$/i],
  ['changelog', /(?:^|\/)(?:changelog|changes|history|releases?|news)(?:\.[a-z]+)?$/i],
  [
    'test',
    /(?:^|\/)(?:tests?|__tests?\w*__|specs?|__mocks__|e2e|__snapshots__)\/|[._-](?:test|spec)s?\.[a-z]+$|_test\.(?:go|py)$|(?:^|\/)test_[^/]+\.py$/i,
  ],
  [
    'example',
    /(?:^|\/)(?:examples?|demos?|samples?|playgrounds?|fixtures?|__fixtures__|templates?|template-[\w-]+|benchmarks?|bench|stories|sandbox)\//i,
  ],
  ['docs', /(?:^|\/)(?:docs?|documentation|site|website)\/|\.(?:md|mdx|markdown|rst|adoc|txt)$/i],
  [
    'tooling',
    /\.config\.[\w.]*[cm]?[jt]s$|(?:^|\/)\.(?:github|gitlab|circleci|husky|vscode|idea|devcontainer|changeset|yarn)\/|(?:^|\/)(?:package\.json|tsconfig[\w.-]*\.json|jsconfig\.json|\.?eslintrc[\w.]*|eslint\.config\.[a-z]+|\.?prettierrc[\w.]*|babel\.config\.[a-z]+|\.babelrc|jest\.config\.[a-z]+|vitest\.config\.[a-z]+|rollup\.config\.[a-z]+|webpack\.config\.[a-z]+|\.editorconfig|\.npmignore|\.gitignore|Makefile|Dockerfile)$/i,
  ],
];

const WEIGHTS: Record<FileKind, number> = {
  source: 1,
  typings: 0.45,
  tooling: 0.5,
  test: 0.35,
  example: 0.35,
  docs: 0.25,
  generated: 0.2,
  vendored: 0.2,
  changelog: 0.15,
};

/** Words in a question that ask about documentation. */
export const ASKS_FOR_DOCS = /\b(?:docs?|documentation|documented|readme|guide|changelog)\b/i;

/** Words in a question that ask for a kind of file, so that kind is not held back. */
const ASKED: Partial<Record<FileKind, RegExp>> = {
  test: /\b(?:tests?|specs?|tested|testing)\b/i,
  docs: ASKS_FOR_DOCS,
  example: /\b(?:examples?|demos?|samples?|playgrounds?|fixtures?|templates?)\b/i,
  changelog: /\b(?:changelog|release notes|history)\b/i,
  typings: /\b(?:typings|type (?:definitions?|declarations?)|declaration files?|d\.ts)\b/i,
  tooling: /\b(?:package\.json|tsconfig|eslint|prettier|babel|jest|vitest|rollup|webpack)\b/i,
  generated: /\b(?:dist|bundles?|built|compiled|minified)\b/i,
};

/** The kind of file at `path` (project-relative, `/`-separated). */
export function fileKind(path: string): FileKind {
  for (const [kind, re] of RULES) if (re.test(path)) return kind;
  return 'source';
}

/** How much a file of this kind counts for this question (1 for source). */
export function kindWeight(kind: FileKind, question: string): number {
  const asked = ASKED[kind];
  if (asked?.test(question)) return Math.max(WEIGHTS[kind], 0.9);
  return WEIGHTS[kind];
}

const SOURCE_FILE = /^src\/(.+)\.(?:tsx?|mts|cts|jsx?|mjs|cjs)$/;
const sourceStems = new WeakMap<ReadonlySet<string>, Set<string>>();

/** The paths under `src/` of `known`, without their extension (computed once per set). */
function stemsOf(known: ReadonlySet<string>): Set<string> {
  let stems = sourceStems.get(known);
  if (stems === undefined) {
    stems = new Set();
    for (const p of known) {
      const m = SOURCE_FILE.exec(p);
      if (m?.[1] !== undefined) stems.add(m[1]);
    }
    sourceStems.set(known, stems);
  }
  return stems;
}

/**
 * Whether `path` is a compiled copy of a source file that is also in `known`: for
 * `internal/operators/map.js` or `_esm5/internal/operators/map.js`, a `src/internal/operators/map.ts`;
 * for a top-level `name.js`, a `lib/name.js`.
 */
export function isMirror(path: string, known: ReadonlySet<string>): boolean {
  if (path.startsWith('src/') || !/\.(?:[cm]?js|d\.ts)$/.test(path)) return false;
  // A top-level `mocha.js` beside `lib/mocha.js`: a bundle of the library, or a shim that loads it.
  if (!path.includes('/') && (known.has(`lib/${path}`) || known.has(`src/${path}`))) return true;
  const stems = stemsOf(known);
  let tail = path.replace(/\.d\.ts$|\.[cm]?js$/, '');
  for (;;) {
    if (stems.has(tail)) return true;
    const slash = tail.indexOf('/');
    if (slash < 0) return false;
    tail = tail.slice(slash + 1);
  }
}

/** Lines past which a single file that matches a question broadly is most likely a bundle. */
const BUNDLE_LINES = 6000;
const BUNDLE_HEAD =
  /typeof exports\s*===?\s*['"]object['"]\s*&&\s*typeof module|\(function\s*\(global,\s*factory\)|^\/\*{6}\/|\bdefine\.amd\b|__webpack_require__|\bSystem\.register\(/;

/**
 * Whether a file read whole looks built rather than written: a UMD, AMD or webpack wrapper at its
 * top, a source map comment, or a length no hand-written module has. (Its path may not say so:
 * `moment.js` and `mocha.js` sit at the top of their packages.)
 */
export function looksBundled(lines: readonly { text: string }[], total: number): boolean {
  if (total > BUNDLE_LINES) return true;
  if (lines.slice(0, 40).some((l) => BUNDLE_HEAD.test(l.text))) return true;
  return lines.slice(-5).some((l) => l.text.includes('sourceMappingURL='));
}
