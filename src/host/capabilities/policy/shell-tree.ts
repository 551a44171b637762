// A bash syntax tree copied out of the grammar's WebAssembly memory into plain objects: only named
// nodes, with their type and source span. The reader works on these (every property read of a
// wasm node is a call into WebAssembly), and the wasm tree is freed at once. Anonymous tokens
// (operators, quotes) are read back from the source text between named nodes, where the reader
// also checks that nothing it does not understand hides.
import { parseBash, type SyntaxNode } from './shell-grammar.js';

/** One named node of the tree. */
export interface ShellNode {
  type: string;
  start: number;
  end: number;
  children: ShellNode[];
}

/** A parsed command line. */
export interface ShellTree {
  root: ShellNode;
  source: string;
  /** The grammar found an error or a missing token somewhere. */
  hasError: boolean;
  /** The tree is deeper than the reader follows; the deepest nodes were left out. */
  truncated: boolean;
}

/** Nesting deeper than this is not followed (and the command is not read as static). */
const MAX_DEPTH = 200;

/** Node types that never have named children: asking would cost a call into WebAssembly each. */
const LEAVES = new Set([
  'word',
  'number',
  'raw_string',
  'ansi_c_string',
  'string_content',
  'variable_name',
  'file_descriptor',
  'comment',
  'heredoc_start',
  'heredoc_end',
  'heredoc_content',
  'special_variable_name',
]);

interface CopyState {
  source: string;
  truncated: boolean;
}

function copy(node: SyntaxNode, depth: number, state: CopyState): ShellNode {
  const type = node.type;
  const out: ShellNode = { type, start: node.startIndex, end: node.endIndex, children: [] };
  if (LEAVES.has(type)) return out;
  // A double-quoted string without `$` or a backtick holds nothing but its text.
  if (type === 'string' && !/[$`]/.test(state.source.slice(out.start, out.end))) return out;
  if (depth >= MAX_DEPTH) {
    state.truncated = node.namedChildCount > 0 || state.truncated;
    return out;
  }
  for (const child of node.namedChildren) out.children.push(copy(child, depth + 1, state));
  return out;
}

/** Parses `source` into a plain tree, or undefined when the grammar is not loaded or gave up. */
export function shellTree(source: string): ShellTree | undefined {
  const tree = parseBash(source);
  if (!tree) return undefined;
  try {
    const state: CopyState = { source, truncated: false };
    const root = copy(tree.rootNode, 0, state);
    return { root, source, hasError: tree.rootNode.hasError, truncated: state.truncated };
  } finally {
    tree.delete();
  }
}

/** The source text of a node. */
export function textOf(tree: ShellTree, node: ShellNode): string {
  return tree.source.slice(node.start, node.end);
}

/** The source text between two positions (a gap between sibling nodes). */
export function gapText(tree: ShellTree, from: number, to: number): string {
  return to > from ? tree.source.slice(from, to) : '';
}
