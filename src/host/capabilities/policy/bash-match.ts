// Matching one command's words against a `Bash(...)` specifier: `prefix:*` matches whole leading
// words, a specifier with `*` is a wildcard over the command text (a trailing ` *` also matches
// nothing, so `ls *` matches `ls` but not `lsof`), anything else must equal the command.
import { parseShell } from './shell-parse.js';

interface CompiledSpec {
  kind: 'prefix' | 'exact' | 'wildcard';
  words: string[];
  regex?: RegExp;
}

const cache = new Map<string, CompiledSpec>();

function specWords(text: string): string[] {
  const parsed = parseShell(text);
  const first = parsed.commands[0];
  if (parsed.commands.length !== 1 || first === undefined || first.redirects.length > 0)
    return text.trim().split(/\s+/);
  return first.words.map((w) => w.value);
}

function compile(spec: string): CompiledSpec {
  const hit = cache.get(spec);
  if (hit) return hit;
  let compiled: CompiledSpec;
  if (spec.endsWith(':*')) {
    compiled = { kind: 'prefix', words: specWords(spec.slice(0, -2)) };
  } else if (spec.includes('*')) {
    const optionalTail = spec.endsWith(' *') && spec.indexOf('*') === spec.length - 1;
    const body = optionalTail ? spec.slice(0, -2) : spec;
    const source = body
      .trim()
      .split(/\s+/)
      .join(' ')
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
      .join('[\\s\\S]*');
    compiled = {
      kind: 'wildcard',
      words: [],
      regex: new RegExp(`^${source}${optionalTail ? '(?: [\\s\\S]*)?' : ''}$`),
    };
  } else {
    compiled = { kind: 'exact', words: specWords(spec) };
  }
  if (cache.size > 1024) cache.clear();
  cache.set(spec, compiled);
  return compiled;
}

/** True when the specifier (undefined = bare `Bash`) matches the command `words`. */
export function matchBashSpec(spec: string | undefined, words: readonly string[]): boolean {
  if (spec === undefined) return true;
  const c = compile(spec);
  if (c.kind === 'wildcard') return c.regex?.test(words.join(' ')) ?? false;
  if (c.kind === 'exact') return c.words.length === words.length && c.words.every((w, i) => w === words[i]);
  return c.words.length <= words.length && c.words.every((w, i) => w === words[i]);
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

/** An allow rule that would cover this command and its variations: `Bash(git status:*)`. */
export function suggestBashRule(words: readonly string[]): string | undefined {
  const head = words[0];
  if (head === undefined || head === '') return undefined;
  const picked = [head];
  const second = words[1];
  if (second !== undefined && SUBCOMMAND_TOOLS.has(head) && SUBCOMMAND.test(second)) {
    picked.push(second);
    const third = words[2];
    if (RUNNERS.has(second) && third !== undefined && SUBCOMMAND.test(third)) picked.push(third);
  }
  if (picked.some((w) => /[\s()"'\\]/.test(w))) return undefined;
  return `Bash(${picked.join(' ')}:*)`;
}
