// One word of a command, as far as it can be known before it runs. A word is static when bash will
// pass exactly `value`: literal text, quoted or not, with no expansion, no unquoted glob or brace
// character and no tilde. Any other word is dynamic; it keeps the glob patterns it may expand to
// (its literal fragments, and the values its variables are given elsewhere in the command), so the
// path guards can still catch `cat ~/.ss?/id_rs?`, `cat $D/.env` or `cat .e{n,x}v`.
import { expandBraces } from '../../../shared/glob.js';
import { ansiC, doubleQuoted, escapeGlob, unquoted, type LiteralPiece } from './shell-quote.js';
import { gapText, textOf, type ShellNode, type ShellTree } from './shell-tree.js';

/** A word after quote removal. */
export interface ShellWord {
  /** The source text. */
  text: string;
  /** What bash passes, when `isStatic`; otherwise the word's literal parts joined. */
  value: string;
  isStatic: boolean;
  /** Why it is not static. */
  why?: string;
  /** Glob patterns (quoted characters escaped) the word may expand to, for the path guards. */
  patterns: string[];
  /** False when a part is only known when it runs: `patterns` then cover its known parts only. */
  complete: boolean;
  /** Not a shell expansion: a file name or input another command puts there (`find -exec {}`). */
  inserted?: boolean;
}

/** What evaluating a word needs from the reader. */
export interface WordContext {
  tree: ShellTree;
  /** Values a variable is given in the command (assignments, loop lists), read as glob patterns. */
  values(name: string): readonly string[];
  /** Reads the commands inside a substitution; returns the static arguments they print from. */
  substitution(node: ShellNode): string[];
  /** Reads whatever commands a node holds, for a construct the word reader does not model. */
  scan(node: ShellNode): void;
}

/** Where a word stands: arguments are globbed and brace-expanded, assignment values are not. */
export type WordRole = 'argument' | 'assignment';

type Piece =
  (LiteralPiece & { kind: 'lit' }) | { kind: 'dyn'; quoted: boolean; values: readonly string[]; why: string };

const MAX_PATTERNS = 64;

function lit(pieces: LiteralPiece[]): Piece[] {
  return pieces.map((p) => ({ kind: 'lit', ...p }));
}

function dyn(why: string, values: readonly string[] = [], quoted = false): Piece {
  return { kind: 'dyn', quoted, values, why };
}

function inner(text: string, open: string, close: string): string | undefined {
  return text.startsWith(open) && text.endsWith(close) && text.length >= open.length + close.length
    ? text.slice(open.length, text.length - close.length)
    : undefined;
}

/** The pieces of a double-quoted string: literal runs decoded, expansions kept as dynamic pieces. */
function stringPieces(node: ShellNode, ctx: WordContext): Piece[] {
  const out: Piece[] = [];
  const literal = (text: string) => {
    if (text === '') return;
    const decoded = doubleQuoted(text);
    out.push(
      decoded === undefined
        ? dyn('a double-quoted string holds an expansion')
        : (lit([{ text: decoded, quoted: true }])[0] as Piece),
    );
  };
  let at = node.start + 1;
  for (const child of node.children) {
    literal(gapText(ctx.tree, at, child.start));
    if (child.type === 'string_content') literal(textOf(ctx.tree, child));
    else out.push(...piecesOf(child, ctx).map((p) => ({ ...p, quoted: true })));
    at = child.end;
  }
  literal(gapText(ctx.tree, at, node.end - 1));
  return out;
}

/** A `${...}` expansion: dynamic, with the values of its variable and the words inside it. */
function expansionPiece(node: ShellNode, ctx: WordContext): Piece {
  const values: string[] = [];
  for (const child of node.children) {
    if (child.type === 'variable_name') values.push(...ctx.values(textOf(ctx.tree, child)));
    else if (child.type === 'command_substitution' || child.type === 'process_substitution')
      values.push(...ctx.substitution(child));
    else {
      const word = evalWord(child, ctx, 'assignment');
      if (word.isStatic) values.push(word.value);
    }
  }
  return dyn('it expands a parameter', values);
}

function piecesOf(node: ShellNode, ctx: WordContext): Piece[] {
  const text = textOf(ctx.tree, node);
  switch (node.type) {
    case 'word':
    case 'number': {
      const pieces = unquoted(text);
      return pieces ? lit(pieces) : [dyn(`bash may read "${text}" differently from the grammar`)];
    }
    case 'raw_string': {
      const body = inner(text, "'", "'");
      return body === undefined || body.includes("'")
        ? [dyn('a quote is not closed')]
        : lit([{ text: body, quoted: true }]);
    }
    case 'ansi_c_string': {
      const body = inner(text, "$'", "'");
      const decoded = body === undefined ? undefined : ansiC(body);
      return decoded === undefined
        ? [dyn(`it uses an escape in ${text} that is not decoded here`)]
        : lit([{ text: decoded, quoted: true }]);
    }
    case 'string':
      return text.startsWith('"') && text.endsWith('"') && text.length >= 2
        ? stringPieces(node, ctx)
        : [dyn('a quote is not closed')];
    case 'concatenation': {
      const out: Piece[] = [];
      let at = node.start;
      for (const child of node.children) {
        if (child.start !== at) out.push(dyn('the grammar left part of a word out'));
        out.push(...piecesOf(child, ctx));
        at = child.end;
      }
      if (at !== node.end) out.push(dyn('the grammar left part of a word out'));
      return out;
    }
    case 'brace_expression':
      return lit([{ text, quoted: false }]);
    case 'simple_expansion':
      return [dyn(`it expands ${text}`, ctx.values(text.slice(1)))];
    case 'expansion':
      return [expansionPiece(node, ctx)];
    case 'command_substitution':
      return [dyn('it substitutes the output of a command', ctx.substitution(node))];
    case 'process_substitution':
      ctx.substitution(node);
      return [dyn('it substitutes a process')];
    case 'arithmetic_expansion':
      ctx.scan(node);
      return [dyn('it evaluates arithmetic')];
    default:
      ctx.scan(node);
      return [dyn(`it uses a ${node.type.replace(/_/g, ' ')}`)];
  }
}

/** Glob text of a literal piece: unquoted characters act, quoted ones are escaped. */
function globText(piece: LiteralPiece, role: WordRole): string {
  return piece.quoted || role === 'assignment' ? escapeGlob(piece.text) : piece.text;
}

/** A `{a..z}` or `{1..9..2}` sequence: bash expands it; the guards read it as any text. */
const SEQUENCE = /(^|[^\\])\{[^{},\s]*\.\.[^{},\s]*\}/g;

function braceExpanded(pattern: string): string[] {
  const withSequences = pattern.replace(SEQUENCE, '$1*');
  try {
    return expandBraces(withSequences);
  } catch {
    return [withSequences];
  }
}

/** Patterns of a word: each combination of known values, and each literal fragment on its own. */
function patternsOf(pieces: Piece[], role: WordRole): string[] {
  let combos: string[] = [''];
  const fragments: string[] = [];
  let fragment = '';
  for (const piece of pieces) {
    if (piece.kind === 'lit') {
      const g = globText(piece, role);
      combos = combos.map((c) => c + g);
      fragment += g;
      continue;
    }
    if (fragment !== '') fragments.push(fragment);
    fragment = '';
    // Values stay patterns even when quoted: a loop variable stands for the files its glob matched,
    // and reading a plain value as a pattern can only find more, never fewer.
    const values = piece.values;
    const next: string[] = [];
    for (const c of combos) for (const v of values) if (next.length < MAX_PATTERNS) next.push(c + v);
    combos = next;
  }
  if (fragment !== '') fragments.push(fragment);
  const all = [...new Set([...combos, ...(pieces.some((p) => p.kind === 'dyn') ? fragments : [])])];
  const out = role === 'argument' ? all.flatMap(braceExpanded) : all;
  return [...new Set(out)].slice(0, MAX_PATTERNS * 4);
}

const GLOB_CHAR = /[*?[]/;

/** Why a word made only of literal pieces is still not static, if it is not. */
function literalProblem(pieces: LiteralPiece[], role: WordRole): string | undefined {
  let joined = '';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] as LiteralPiece;
    if (!piece.quoted) {
      if (role === 'argument' && GLOB_CHAR.test(piece.text)) return 'it has an unquoted glob character';
      const tilde = piece.text.indexOf('~');
      if (tilde !== -1) {
        const before = tilde === 0 ? joined.slice(-1) : piece.text[tilde - 1];
        if ((tilde === 0 && i === 0) || before === '=' || before === ':')
          return 'it starts with a tilde, expanded to a home directory';
      }
    }
    joined += piece.text;
  }
  if (role === 'argument' && pieces.some((p) => !p.quoted && p.text.includes('{'))) {
    const text = pieces.map((p) => globText(p, role)).join('');
    const expanded = braceExpanded(text);
    if (expanded.length !== 1 || expanded[0] !== text) return 'it has a brace expansion';
  }
  return undefined;
}

/** Evaluates one word node. */
export function evalWord(node: ShellNode, ctx: WordContext, role: WordRole = 'argument'): ShellWord {
  const text = textOf(ctx.tree, node);
  const pieces = piecesOf(node, ctx);
  const firstDyn = pieces.find((p) => p.kind === 'dyn');
  const value =
    pieces.length === 1 && pieces[0]?.kind === 'lit'
      ? pieces[0].text
      : pieces.map((p) => (p.kind === 'lit' ? p.text : '')).join('');
  if (firstDyn)
    return {
      text,
      value,
      isStatic: false,
      why: firstDyn.why,
      patterns: patternsOf(pieces, role),
      complete: false,
    };
  const problem = literalProblem(pieces as LiteralPiece[], role);
  if (problem)
    return { text, value, isStatic: false, why: problem, patterns: patternsOf(pieces, role), complete: true };
  return { text, value, isStatic: true, patterns: [escapeGlob(value)], complete: true };
}

/** A word known from the start (an operand a wrapper inserts, such as xargs' default echo). */
export function literalWord(value: string): ShellWord {
  return { text: value, value, isStatic: true, patterns: [escapeGlob(value)], complete: true };
}

/** A word's value, or for one only known when it runs its source (a double-quoted one unquoted). */
export function sourceValue(w: ShellWord): string {
  if (w.isStatic) return w.value;
  const quoted = /^"([\s\S]*)"$/.exec(w.text);
  return quoted ? (quoted[1] ?? '').replace(/\\(["\\`$])/g, '$1') : w.text;
}
