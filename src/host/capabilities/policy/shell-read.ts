// Reads a command line into the simple commands bash will run ("parts"), with the bash grammar.
// Only a small subset is read as static: literal words joined by `&&`, `||`, `;`, newlines and
// pipes, with assignments and redirections. Every other construct (subshells, braces, `if`, loops,
// `case`, functions, `[[`, `((`, `&`, `!`, arrays, ...), any node type not handled here, and any
// ERROR or MISSING node make the reading `unreadable`, with the reason; the commands inside are
// still collected, so deny rules and the path guards see them. Between nodes only whitespace and
// the expected operators may stand: text the grammar skipped would be text bash runs.
import { shellGrammarProblem } from './shell-grammar.js';
import {
  describe,
  readAssignment,
  readRedirect,
  type PartReader,
  type ShellAssignment,
  type ShellPart,
  type ShellReading,
  type ShellRedirect,
} from './shell-parts.js';
import { readStatic } from './shell-static.js';
import { gapText, shellTree, textOf, type ShellNode, type ShellTree } from './shell-tree.js';
import { evalWord, type ShellWord, type WordContext } from './shell-words.js';

export type { ShellPart, ShellReading } from './shell-parts.js';

/** The longest command read at all. */
const MAX_COMMAND_LENGTH = 65_536;
const MAX_PARTS = 1024;

/** Reserved words, and `time`, which bash reads as one where a command name stands (the grammar does not). */
const RESERVED = new Set(
  '! [[ ]] { } case coproc do done elif else esac fi for function if in select then time until while'.split(
    ' ',
  ),
);
/** Whitespace bash and the grammar agree on: spaces, tabs and line continuations. */
const SPACE = /^(?:[ \t]|\\\n)*$/;
const LIST_GAP = /^(?:[ \t\n]|\\\n)*(?:&&|\|\|)(?:[ \t\n]|\\\n)*$/;
const PIPE_GAP = /^(?:[ \t]|\\\n)*\|&?(?:[ \t\n]|\\\n)*$/;
const STATEMENT_GAP = /^(?:[ \t\n]|\\\n)*(?:[;&](?:[ \t\n]|\\\n)*)?$/;
const WORD_TYPES = new Set([
  'word',
  'number',
  'string',
  'raw_string',
  'ansi_c_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
  'brace_expression',
  'translated_string',
]);

class Reader implements PartReader {
  readonly parts: ShellPart[] = [];
  readonly unreadable: string[] = [];
  private readonly assigned = new Map<string, string[]>();
  /** Redirections the grammar hung on a list or pipeline, kept for its last command. */
  private readonly attached = new Map<ShellNode, ShellRedirect[]>();

  constructor(readonly tree: ShellTree) {}

  problem(reason: string): void {
    if (!this.unreadable.includes(reason) && this.unreadable.length < 20) this.unreadable.push(reason);
  }

  values(name: string): readonly string[] {
    return this.assigned.get(name) ?? [];
  }

  /** Records the static values every assignment in the line gives, before reading (loops reuse them). */
  collectAssignments(node: ShellNode): void {
    if (node.type === 'variable_assignment') {
      const [name, value] = node.children;
      if (name?.type === 'variable_name' && value && value.type !== 'array') {
        const word = evalWord(value, { ...this.silent(), tree: this.tree }, 'assignment');
        const key = textOf(this.tree, name);
        // The value as written (a tilde stays `~`, `D=~/.aws`, for the guards to resolve); bash
        // globs it where it is expanded unquoted.
        if (word.complete) this.assigned.set(key, [...(this.assigned.get(key) ?? []), word.value]);
      }
    }
    if (node.type === 'for_statement') {
      const name = node.children.find((c) => c.type === 'variable_name');
      const key = name ? textOf(this.tree, name) : undefined;
      for (const c of node.children) {
        if (key === undefined || c === name || !WORD_TYPES.has(c.type)) continue;
        const word = evalWord(c, { ...this.silent(), tree: this.tree });
        this.assigned.set(key, [...(this.assigned.get(key) ?? []), ...word.patterns]);
      }
    }
    for (const child of node.children) this.collectAssignments(child);
  }

  /** A word context that records nothing (for the assignment pass). */
  private silent(): Omit<WordContext, 'tree'> {
    return { values: () => [], substitution: () => [], scan: () => undefined };
  }

  substitution(node: ShellNode): string[] {
    const before = this.parts.length;
    this.statements(node, node.start + (textOf(this.tree, node).startsWith('`') ? 1 : 2), node.end - 1);
    return this.parts
      .slice(before)
      .flatMap((p) => p.words.slice(1))
      .filter((w) => w.isStatic)
      .map((w) => w.value);
  }

  scan(node: ShellNode): void {
    for (const child of node.children) {
      if (child.type === 'command') this.command(child, []);
      else if (child.type === 'redirected_statement') this.statement(child);
      else if (child.type === 'variable_assignment' || child.type === 'variable_assignments')
        this.statement(child);
      else if (child.type === 'file_redirect' || child.type === 'herestring_redirect') this.statement(child);
      else if (child.type === 'command_substitution' || child.type === 'process_substitution')
        this.substitution(child);
      else this.scan(child);
    }
  }

  push(part: ShellPart): void {
    if (this.parts.length >= MAX_PARTS) this.problem(`it runs more than ${MAX_PARTS} commands`);
    else this.parts.push(part);
  }

  /** Statements between `from` and `to` (a program, or a substitution's body). */
  statements(node: ShellNode, from: number, to: number): void {
    let at = from;
    for (const child of node.children) {
      const gap = gapText(this.tree, at, child.start);
      if (!STATEMENT_GAP.test(gap))
        this.problem(`it has text the grammar does not place: ${JSON.stringify(gap.trim().slice(0, 20))}`);
      if (gap.includes('&')) this.problem('it runs a command in the background (&)');
      if (child.type !== 'comment') this.statement(child);
      at = child.end;
    }
    const tail = gapText(this.tree, at, to);
    if (!STATEMENT_GAP.test(tail))
      this.problem(`it has text the grammar does not place: ${JSON.stringify(tail.trim().slice(0, 20))}`);
    if (/&/.test(tail)) this.problem('it runs a command in the background (&)');
  }

  statement(node: ShellNode): void {
    switch (node.type) {
      case 'command':
        return this.command(node, []);
      case 'list':
        return this.joined(node, LIST_GAP);
      case 'pipeline':
        return this.joined(node, PIPE_GAP);
      case 'redirected_statement':
        return this.redirected(node);
      case 'variable_assignment':
      case 'variable_assignments': {
        const nodes = node.type === 'variable_assignment' ? [node] : node.children;
        const assignments = nodes.flatMap((n) =>
          n.type === 'variable_assignment' ? [readAssignment(n, this)] : [],
        );
        if (assignments.length !== nodes.length) this.problem('it assigns in a form not read here');
        return this.push({ assignments, words: [], redirects: [], text: textOf(this.tree, node) });
      }
      case 'comment':
        return;
      case 'file_redirect':
      case 'herestring_redirect':
      case 'heredoc_redirect':
        // `$(<file)`: a redirection with no command, which reads the file into the substitution.
        return this.push({
          assignments: [],
          words: [],
          redirects: [readRedirect(node, this)],
          text: textOf(this.tree, node),
        });
      default:
        this.problem(`it uses ${describe(node.type)}, which is not read statically`);
        return this.scan(node);
    }
  }

  /** `a && b`, `a || b`, `a | b`: the statements, with only the operator between them. */
  private joined(node: ShellNode, gapPattern: RegExp): void {
    const kids = node.children.filter((c) => c.type !== 'comment');
    if (kids.length !== node.children.length) this.problem('it has a comment inside a list');
    let prev: ShellNode | undefined;
    for (const child of kids) {
      if (prev && !gapPattern.test(gapText(this.tree, prev.end, child.start)))
        this.problem(
          `it joins commands with ${JSON.stringify(gapText(this.tree, prev.end, child.start).trim())}`,
        );
      this.statement(child);
      prev = child;
    }
  }

  private redirected(node: ShellNode): void {
    const [body, ...rest] = node.children;
    const bodyIsRedirect = body !== undefined && body.type.endsWith('_redirect');
    const redirectNodes = bodyIsRedirect ? node.children : rest;
    const nonRedirects = redirectNodes.filter((r) => !r.type.endsWith('_redirect'));
    if (nonRedirects.length > 0)
      this.problem('a redirection is followed by something the grammar could not place');
    const redirects = redirectNodes
      .filter((r) => r.type.endsWith('_redirect'))
      .map((r) => readRedirect(r, this));
    for (const extra of nonRedirects) this.scan({ ...extra, children: [extra] });
    this.checkSpaces(node, node.children);
    if (bodyIsRedirect || body === undefined) {
      this.push({ assignments: [], words: [], redirects, text: textOf(this.tree, node) });
      return;
    }
    if (body.type === 'command') return this.command(body, redirects, node);
    // `a && b > out`, `a | b 2>&1`: the grammar hangs the redirection on the whole list, but in
    // bash a list cannot be redirected; the redirection follows, and belongs to, its last command.
    const last = lastCommand(body);
    if (last) {
      this.attached.set(last, redirects);
      return this.statement(body);
    }
    this.problem('a redirection applies to a compound command');
    this.statement(body);
    this.push({ assignments: [], words: [], redirects, text: textOf(this.tree, node) });
  }

  private checkSpaces(node: ShellNode, children: readonly ShellNode[]): void {
    let at = node.start;
    let prev: ShellNode | undefined;
    for (const child of children) {
      const gap = gapText(this.tree, at, child.start);
      // Two words with nothing between them are one word to bash (`$'r'\m` is `rm`).
      if (gap === '' && prev && isWordish(prev) && isWordish(child))
        this.problem('the grammar split one word in two');
      prev = child;
      if (!SPACE.test(gap))
        this.problem(`it has text the grammar does not place: ${JSON.stringify(gap.trim().slice(0, 20))}`);
      // The grammar takes `a\<newline>b` for two words; bash drops the pair first and reads `ab`.
      else if (gap !== '' && gap.replace(/\\\n/g, '') === '' && at !== node.start)
        this.problem('a line continuation joins two words');
      at = child.end;
    }
    if (!SPACE.test(gapText(this.tree, at, node.end)))
      this.problem('it has text after a command the grammar does not place');
  }

  private command(node: ShellNode, given: ShellRedirect[], whole: ShellNode = node): void {
    const outer = [...given, ...(this.attached.get(node) ?? [])];
    const assignments: ShellAssignment[] = [];
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    this.checkSpaces(node, node.children);
    for (const child of node.children) {
      if (child.type === 'variable_assignment' && words.length === 0)
        assignments.push(readAssignment(child, this));
      else if (child.type.endsWith('_redirect')) redirects.push(readRedirect(child, this));
      else if (child.type === 'command_name' && words.length === 0) words.push(this.commandName(child));
      else if (WORD_TYPES.has(child.type) && words.length > 0) words.push(evalWord(child, this));
      else {
        this.problem(`it has ${describe(child.type)} inside a command`);
        this.scan({ ...child, children: [child] });
      }
    }
    const name = words[0];
    if (name && name.isStatic && RESERVED.has(name.value) && !/^['"\\$]/.test(name.text))
      this.problem(`"${name.value}" is a reserved word where a command name stands`);
    this.push({ assignments, words, redirects: [...redirects, ...outer], text: textOf(this.tree, whole) });
  }

  private commandName(node: ShellNode): ShellWord {
    const [only] = node.children;
    if (
      node.children.length !== 1 ||
      !only ||
      only.start !== node.start ||
      only.end !== node.end ||
      !WORD_TYPES.has(only.type)
    ) {
      this.problem('the command name is not a single word');
      this.scan(node);
      return evalWord({ ...node, type: 'unknown', children: [] }, this);
    }
    return evalWord(only, this);
  }
}

/** The last simple command of a list or pipeline (not inside anything else), if it ends with one. */
function lastCommand(node: ShellNode): ShellNode | undefined {
  let at: ShellNode | undefined = node;
  while (at && (at.type === 'list' || at.type === 'pipeline')) at = at.children[at.children.length - 1];
  return at?.type === 'command' ? at : undefined;
}

function isWordish(node: ShellNode): boolean {
  return node.type === 'command_name' || node.type === 'variable_assignment' || WORD_TYPES.has(node.type);
}

/** Reads a command line with the grammar. Without the grammar nothing is read, and the reason says why. */
export function readShellTree(source: string): ShellReading {
  if (source.length > MAX_COMMAND_LENGTH)
    return { parts: [], unreadable: [`the command is longer than ${MAX_COMMAND_LENGTH} characters`] };
  if (source.includes('\0')) return { parts: [], unreadable: ['the command holds a NUL character'] };
  const tree = shellTree(source);
  if (!tree)
    return { parts: [], unreadable: [shellGrammarProblem() ?? 'the command took too long to parse'] };
  const reader = new Reader(tree);
  if (tree.hasError) reader.problem('it does not parse as bash');
  if (tree.truncated) reader.problem('it nests too deeply');
  reader.collectAssignments(tree.root);
  reader.statements(tree.root, 0, source.length);
  return { parts: reader.parts, unreadable: reader.unreadable };
}

/**
 * Reads a command line: a line of literal words, list operators, pipes and output redirections
 * in one pass (shell-static.ts, the same reading), any other with the grammar. Until the grammar
 * is loaded every line waits for it, so what is decided never depends on when it loaded.
 */
export function readShell(source: string): ShellReading {
  if (shellGrammarProblem() !== undefined) return readShellTree(source);
  return readStatic(source) ?? readShellTree(source);
}
