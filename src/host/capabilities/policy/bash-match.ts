// Matching one command's words against a `Bash(...)` specifier: `prefix:*` matches whole leading
// words, a specifier with `*` is a wildcard over the command text (a trailing ` *` also matches
// nothing, so `ls *` matches `ls` but not `lsof`), anything else must equal the command. A command
// whose words are only partly known (a word computed when it runs, or words xargs adds) matches a
// specifier only through its known leading words, and `couldMatch` says whether the unknown rest
// might still make it match (then a deny rule cannot be ruled out).
import { readShell } from './shell-read.js';

/** A command's words as far as they are known: `known` leading words, and maybe more after them. */
export interface FormWords {
  words: readonly string[];
  /** How many leading words are known (the rest are computed when it runs). */
  known: number;
  /** More words are added when it runs (xargs). */
  open: boolean;
}

interface CompiledSpec {
  kind: 'prefix' | 'exact' | 'wildcard';
  words: string[];
  /** Wildcard: the words before the first word holding a `*`. */
  literal: string[];
  regex?: RegExp;
}

const cache = new Map<string, CompiledSpec>();

/** The words of a specifier, read as bash would (quotes removed); plain split when it is not one command. */
function specWords(text: string): string[] {
  const reading = readShell(text);
  const [only] = reading.parts;
  if (
    reading.unreadable.length === 0 &&
    reading.parts.length === 1 &&
    only !== undefined &&
    only.assignments.length === 0 &&
    only.redirects.length === 0 &&
    only.words.every((w) => w.isStatic)
  )
    return only.words.map((w) => w.value);
  return text.trim().split(/\s+/);
}

function compile(spec: string): CompiledSpec {
  const hit = cache.get(spec);
  if (hit) return hit;
  let compiled: CompiledSpec;
  if (spec.endsWith(':*')) {
    const words = specWords(spec.slice(0, -2));
    compiled = { kind: 'prefix', words, literal: words };
  } else if (spec.includes('*')) {
    const optionalTail = spec.endsWith(' *') && spec.indexOf('*') === spec.length - 1;
    const body = optionalTail ? spec.slice(0, -2) : spec;
    const plain = body.trim().split(/\s+/);
    const source = plain
      .join(' ')
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
      .join('[\\s\\S]*');
    const literal = plain.slice(
      0,
      Math.max(
        0,
        plain.findIndex((w) => w.includes('*')),
      ),
    );
    compiled = {
      kind: 'wildcard',
      words: [],
      literal,
      regex: new RegExp(`^${source}${optionalTail ? '(?: [\\s\\S]*)?' : ''}$`),
    };
  } else {
    const words = specWords(spec);
    compiled = { kind: 'exact', words, literal: words };
  }
  if (cache.size > 1024) cache.clear();
  cache.set(spec, compiled);
  return compiled;
}

/** True when the specifier (undefined = bare `Bash`) matches the command for certain. */
export function matchBashSpec(spec: string | undefined, form: FormWords | readonly string[]): boolean {
  const f = 'known' in form ? form : { words: form, known: form.length, open: false };
  if (spec === undefined) return true;
  const c = compile(spec);
  const complete = f.known === f.words.length && !f.open;
  if (c.kind === 'wildcard') return complete && (c.regex?.test(f.words.join(' ')) ?? false);
  if (c.kind === 'exact')
    return complete && c.words.length === f.words.length && c.words.every((w, i) => w === f.words[i]);
  return c.words.length <= f.known && c.words.every((w, i) => w === f.words[i]);
}

/** True when the specifier might match once the unknown words are known (its known words agree). */
export function couldMatch(spec: string | undefined, form: FormWords): boolean {
  if (spec === undefined || matchBashSpec(spec, form)) return true;
  const c = compile(spec);
  const agrees = (words: readonly string[]) => words.every((w, i) => i >= form.known || w === form.words[i]);
  if (c.kind === 'wildcard') return agrees(c.literal);
  return agrees(c.words) && (c.words.length > form.known || form.open);
}

/**
 * True when the specifier does not match but its words appear in the command in order, after the
 * same program name: `git -C repo push` may be `git push` with an option before its subcommand.
 */
export function matchesLoosely(spec: string | undefined, form: FormWords): boolean {
  if (spec === undefined || matchBashSpec(spec, form)) return false;
  const c = compile(spec);
  const words = c.kind === 'wildcard' ? c.literal : c.words;
  if (words.length < 2 || form.known === 0 || words[0] !== form.words[0]) return false;
  let at = 1;
  for (let i = 1; i < form.known && at < words.length; i++) if (form.words[i] === words[at]) at++;
  return at === words.length;
}

/** True when the specifier names at least the first `n` words of the command (a rule covering a code flag). */
export function specCovers(spec: string | undefined, n: number): boolean {
  if (spec === undefined) return false;
  const c = compile(spec);
  return c.kind === 'exact' || c.literal.length >= n;
}

const SUBCOMMAND = /^[a-z][a-z0-9-]*(?::[a-z0-9-]+)*$/;
const RUNNERS = new Set(['run', 'exec', 'run-script', 'x', 'dlx']);
/** Programs whose second word is a subcommand worth keeping in a suggested rule (`git status`). */
const SUBCOMMAND_TOOLS = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'npx',
  'deno',
  'cargo',
  'go',
  'docker',
  'podman',
  'kubectl',
  'helm',
  'pip',
  'pip3',
  'poetry',
  'uv',
  'dotnet',
  'gradle',
  'mvn',
  'make',
  'gh',
  'brew',
  'terraform',
  'rustup',
]);

/**
 * An allow rule that would cover this command and its variations: `Bash(git status:*)`; with
 * `env`, the assignments it runs with lead (`Bash(A=1 npm test:*)`); `atLeast` words are kept (a
 * rule must name a code flag).
 */
export function suggestBashRule(
  words: readonly string[],
  atLeast = 1,
  env: readonly string[] = [],
): string | undefined {
  const head = words[0];
  if (head === undefined || head === '') return undefined;
  const picked = [head];
  const second = words[1];
  if (second !== undefined && SUBCOMMAND_TOOLS.has(head) && SUBCOMMAND.test(second)) {
    picked.push(second);
    const third = words[2];
    if (RUNNERS.has(second) && third !== undefined && SUBCOMMAND.test(third)) picked.push(third);
  }
  for (let i = picked.length; i < atLeast && i < words.length; i++) picked.push(words[i] as string);
  const all = [...env, ...picked];
  if (all.some((w) => /[\s()"'\\*]/.test(w) || w === '')) return undefined;
  return `Bash(${all.join(' ')}:*)`;
}
