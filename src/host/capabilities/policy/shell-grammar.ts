// The bash grammar the shell policy reads commands with: tree-sitter-bash's WebAssembly build,
// run by web-tree-sitter, both from npm (nothing is compiled at install). It is loaded lazily, once
// per process, the first time a command needs judging, so a CLI run that never runs a command
// never pays for it. Until it is loaded (or when it cannot be), `parseBash` returns nothing and the
// policy asks: a missing grammar costs a prompt, never an unchecked command.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type * as WebTreeSitter from 'web-tree-sitter';
import type { Node as SyntaxNode, Parser as TreeSitterParser, Tree } from 'web-tree-sitter';

export type { SyntaxNode, Tree };

/** Parsing gives up after this long (a bound on host time for one model-written command). */
const PARSE_BUDGET_MS = 250;

let parser: TreeSitterParser | undefined;
let loading: Promise<void> | undefined;
let failure: string | undefined;

async function load(): Promise<void> {
  // Resolved beside this module: in the CLI bundle `import.meta.url` is the bundle's own location,
  // so an installed cadre finds the packages in its own node_modules. Loaded with require, not
  // import(): the CLI bundle runs from V8's code cache, where a dynamic import has no loader.
  const require = createRequire(import.meta.url);
  const runtimeWasm = require.resolve('web-tree-sitter/web-tree-sitter.wasm');
  const bashWasm = require.resolve('tree-sitter-bash/tree-sitter-bash.wasm');
  const ts = require('web-tree-sitter') as typeof WebTreeSitter;
  const [runtimeBytes, bashBytes] = await Promise.all([readFile(runtimeWasm), readFile(bashWasm)]);
  await ts.Parser.init({ wasmBinary: runtimeBytes });
  const language = await ts.Language.load(bashBytes);
  const p = new ts.Parser();
  p.setLanguage(language);
  parser = p;
}

/**
 * Loads the grammar once per process; later calls return the same promise. Never rejects: a
 * failure is kept and reported by `shellGrammarProblem`, and commands then ask.
 */
export function loadShellGrammar(): Promise<void> {
  loading ??= load().catch((error: unknown) => {
    failure = error instanceof Error ? error.message : String(error);
  });
  return loading;
}

/** Why commands cannot be read: the grammar is not loaded yet, or failed to load. */
export function shellGrammarProblem(): string | undefined {
  if (parser) return undefined;
  if (failure !== undefined) return `the bash grammar (tree-sitter-bash) could not be loaded: ${failure}`;
  return 'the bash grammar (tree-sitter-bash) is not loaded yet';
}

/**
 * Parses `source` with the bash grammar, or returns undefined when the grammar is not loaded or
 * parsing ran past its time budget. The caller must `delete()` the tree (it lives in wasm memory).
 */
export function parseBash(source: string): Tree | undefined {
  if (!parser) return undefined;
  const started = performance.now();
  const tree = parser.parse(source, null, {
    progressCallback: () => performance.now() - started > PARSE_BUDGET_MS,
  });
  if (!tree) {
    // A cancelled parse resumes where it stopped unless reset.
    parser.reset();
    return undefined;
  }
  return tree;
}
