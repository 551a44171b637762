// The parts a command line is read into (simple commands with their assignments, words and
// redirections), and the readers of an assignment and of a redirection, which the statement
// reader (shell-read.ts) calls for each it meets.
import { gapText, textOf, type ShellNode, type ShellTree } from './shell-tree.js';
import { evalWord, type ShellWord, type WordContext } from './shell-words.js';

/** `NAME=value` before a command, or alone. */
export interface ShellAssignment {
  name: string;
  value: ShellWord;
  /** `+=`: the value is appended to one only known when it runs. */
  append: boolean;
}

/** What a redirection does with its target. */
type RedirectKind = 'write' | 'read' | 'readwrite' | 'dup' | 'heredoc' | 'herestring';

/** One redirection of a part. */
export interface ShellRedirect {
  op: string;
  kind: RedirectKind;
  target?: ShellWord;
}

/** One simple command: its assignments, its words (name first) and its redirections. */
export interface ShellPart {
  assignments: ShellAssignment[];
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** The source text, for messages. */
  text: string;
}

/** A whole command line, read. */
export interface ShellReading {
  parts: ShellPart[];
  /** Why the line is not entirely static (empty when it is). */
  unreadable: string[];
}

/** What reading an assignment or a redirection needs from the statement reader. */
export interface PartReader extends WordContext {
  tree: ShellTree;
  /** Records why the line is not static. */
  problem(reason: string): void;
}

const REDIRECT_OPS: Record<string, RedirectKind> = {
  '<': 'read',
  '>': 'write',
  '>>': 'write',
  '>|': 'write',
  '&>': 'write',
  '&>>': 'write',
  '<>': 'readwrite',
  '>&': 'dup',
  '<&': 'dup',
};

/** A node type in words, for messages. */
export function describe(type: string): string {
  return type === 'ERROR' ? 'text that is not bash syntax' : `a ${type.replace(/_/g, ' ')}`;
}

export function readAssignment(node: ShellNode, r: PartReader): ShellAssignment {
  const [name, value] = node.children;
  const nameText = name ? textOf(r.tree, name) : '';
  if (name?.type !== 'variable_name') r.problem('it assigns an array element (its index is evaluated)');
  const op = gapText(r.tree, name?.end ?? node.start, value?.start ?? node.end);
  if (op !== '=' && op !== '+=') r.problem(`it assigns with ${JSON.stringify(op)}`);
  if (node.children.length > 2) r.problem('an assignment has more than one value');
  if (value?.type === 'array') {
    r.problem('it assigns an array');
    r.scan(value);
  }
  const word =
    value && value.type !== 'array'
      ? evalWord(value, r, 'assignment')
      : {
          text: '',
          value: '',
          isStatic: value === undefined,
          patterns: [''],
          complete: value === undefined,
        };
  return { name: nameText, value: word, append: op === '+=' };
}

export function readRedirect(node: ShellNode, r: PartReader): ShellRedirect {
  if (node.type === 'heredoc_redirect') {
    r.problem('it has a here-document');
    r.scan(node);
    return { op: '<<', kind: 'heredoc' };
  }
  if (node.type === 'herestring_redirect') {
    const [word] = node.children;
    if (node.children.length !== 1 || !word) r.problem('a here-string is not one word');
    return { op: '<<<', kind: 'herestring', ...(word ? { target: evalWord(word, r) } : {}) };
  }
  if (node.type !== 'file_redirect') {
    r.problem(`it uses ${describe(node.type)}`);
    r.scan(node);
    return { op: '?', kind: 'write' };
  }
  const [first, ...others] = node.children;
  const fd = first?.type === 'file_descriptor' ? first : undefined;
  // The grammar reads `cat 0>x` as the word `0` and `>x`; bash reads digits standing right
  // before a redirection as its descriptor, and never passes them as a word.
  if (!fd && /(^|[\s;&|()])[0-9]+$/.test(r.tree.source.slice(Math.max(0, node.start - 12), node.start)))
    r.problem('a number right before a redirection is its descriptor to bash');
  const targets = fd ? others : node.children;
  if (fd && !/^\d+$/.test(textOf(r.tree, fd)))
    r.problem('a redirection names its descriptor with a variable');
  const target = targets[0];
  const op = gapText(r.tree, fd?.end ?? node.start, target?.start ?? node.end).replace(/[ \t]+$/, '');
  const kind = REDIRECT_OPS[op];
  if (kind === undefined) r.problem(`it uses the redirection ${JSON.stringify(op)}`);
  if (targets.length !== 1 || !target) r.problem('a redirection does not have exactly one target');
  for (const extra of targets.slice(1)) evalWord(extra, r);
  const word = target ? evalWord(target, r) : undefined;
  return { op, kind: resolveDup(kind ?? 'write', word), ...(word ? { target: word } : {}) };
}

/** `>&word` and `<&word` duplicate a descriptor only when the word is a number or `-`. */
function resolveDup(kind: RedirectKind, target: ShellWord | undefined): RedirectKind {
  if (kind !== 'dup') return kind;
  if (target?.isStatic && /^(\d+|-)$/.test(target.value)) return 'dup';
  return 'write';
}
