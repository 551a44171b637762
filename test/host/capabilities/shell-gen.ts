// A seeded generator of tricky shell command lines for the differential test: quoting of every
// kind, escapes, globs, braces, tildes, every expansion, substitutions, redirections, here-documents
// and here-strings, assignments, lists, pipes, compound commands, and commands that run other
// commands (`eval`, `bash -c`, `command`, `exec`). Command names are the trace stubs' names.

/** A deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  'ls',
  'cat',
  'rm',
  'echo',
  'printf',
  'grep',
  'git',
  'touch',
  'head',
  'wc',
  'id',
  'curl',
  'tee',
  'true',
  'test',
  'base64',
  'env',
  'timeout',
  'xargs',
  'find',
  'sudo',
];
const PLAIN = [
  'a',
  'x',
  '-l',
  '--all',
  'src',
  'src/a.ts',
  '.env',
  'README.md',
  'a=b',
  'k:v',
  '-rf',
  '.',
  '..',
  'HEAD~1',
  'a#b',
  '%s',
  '@x',
  '+x',
  'x,y',
  'é',
  '.git/config',
  '~',
  '~/.ssh/id_rsa',
  'a=~/x',
  '--file=.env',
  '@.env',
  '{}',
  'a}b',
  '!x',
  'x!',
  '^a',
  'a\\\nb',
  '#x',
  'x#y',
  "'#'",
  '--',
  '-',
  'a\tb',
];
const SINGLE = [
  "'a b'",
  "'$x'",
  "'a\"b'",
  "''",
  "'*'",
  "'.env'",
  "'rm'",
  "'a\\b'",
  "'~/x'",
  "'{a,b}'",
  "'x\ny'",
];
const DOUBLE_PARTS = [
  'a',
  ' ',
  'b c',
  '\\$x',
  '\\"',
  '\\\\',
  '\\a',
  '$x',
  '${x}',
  '$(id)',
  '`id`',
  '$((1+1))',
  "'",
  '*',
  '~',
  '{a,b}',
  '.env',
  '\\`',
  '$',
  '@',
  '#',
];
const ANSI = [
  "$'a'",
  "$'a\\tb'",
  "$'\\x72m'",
  "$'\\101'",
  "$'\\''",
  "$'\\\\'",
  "$'\\n'",
  "$'\\u0041'",
  "$'\\cA'",
  "$'\\0a'",
  "$'a\\x2ab'",
  "$'\\e'",
  "$'\\\"'",
];
const ESCAPES = [
  '\\ ',
  '\\$x',
  '\\*',
  '\\;',
  '\\|',
  '\\&',
  "\\'",
  '\\"',
  '\\\\',
  '\\n',
  '\\~',
  '\\{a,b\\}',
  '\\#',
];
const GLOBS = [
  '*',
  '*.ts',
  'src/*',
  '.e?v',
  '[ab]',
  '~/.ss?/id_rs?',
  '.en[v]',
  '.*',
  '*/a.ts',
  '[!x]*',
  '~/.aws/cred*',
  'sr?/*.ts',
  '.git/hoo*',
  '*.md',
];
const BRACES = ['{a,b}', 'x{1..3}', '.e{n,x}v', 'a{b', '{a,}c', '~/.{ssh,aws}', '{.env,x}', '{1..2}{a,b}'];
const EXPANSIONS = [
  '$x',
  '${x}',
  '${x:-.env}',
  '${!y}',
  '${#x}',
  '$((1+2))',
  '$((a[$(id)]))',
  '$[1+1]',
  '$IFS',
  '${IFS}',
  '$(id)',
  '`id`',
  '<(id)',
  '>(id)',
  '$(<.env)',
  '$"t"',
  '$1',
  '$@',
  '$$',
  '${x/a/b}',
  '${HOME}',
  '$HOME/.aws/credentials',
  '${x:-$(id)}',
  '"$(<.env)"',
  '$(echo .env)',
];
const REDIRECTS = [
  '>out.txt',
  '>>out.txt',
  '2>&1',
  '>/dev/null',
  '2>/dev/null',
  '<.env',
  '<README.md',
  '<<<word',
  '<<<"$x"',
  '&>out.txt',
  '>&2',
  '>| out.txt',
  '<>out.txt',
  '3>out.txt',
  '> .git/hooks/pre-commit',
  '>.cadre/config.json',
  '>../outside.txt',
  '< ~/.ssh/id_rsa',
  '<.e?v',
  '2>&-',
  '> "$x"',
  '>&out.txt',
  '<&0',
  '>$(id)',
  '&>>out.txt',
  '2>>out.txt',
  '1>out.txt',
  '>out.txt 2>&1',
  '2>&1 >out.txt',
];
const ASSIGN_NAMES = ['x', 'y', 'A', 'NODE_ENV', 'IFS', 'HOME'];
const SEPARATORS = [
  ' && ',
  ' || ',
  '; ',
  ' | ',
  '\n',
  ' |& ',
  ' & ',
  ';',
  '\t&&\t',
  ' ;\n',
  ' \\\n&& ',
  ' &&\n',
];

/** Builds commands from a random source. */
export class CommandGenerator {
  /** In a tame line, words are literal (quoted or escaped in every way) but never expand. */
  private tame = false;

  constructor(private readonly r: () => number) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.r() * items.length)] as T;
  }

  private chance(p: number): boolean {
    return this.r() < p;
  }

  word(depth = 0): string {
    const k = this.tame ? this.r() * 0.63 : this.r();
    if (k < 0.3) return this.pick(PLAIN);
    if (k < 0.4) return this.pick(SINGLE);
    if (k < 0.5) {
      const n = 1 + Math.floor(this.r() * 3);
      return `"${Array.from({ length: n }, () => this.pick(DOUBLE_PARTS)).join('')}"`;
    }
    if (k < 0.57) return this.pick(ANSI);
    if (k < 0.63) return this.pick(ESCAPES);
    if (k < 0.7) return this.pick(GLOBS);
    if (k < 0.76) return this.pick(BRACES);
    if (k < 0.86) return this.pick(EXPANSIONS);
    if (k < 0.9 && depth < 2) return `$(${this.list(depth + 1)})`;
    return depth < 2 ? this.word(depth + 1) + this.word(depth + 1) : this.pick(PLAIN);
  }

  name(depth: number): string {
    const n = this.pick(NAMES);
    const k = this.tame ? this.r() * 0.84 : this.r();
    if (k < 0.6) return n;
    if (k < 0.65) return `\\${n}`;
    if (k < 0.7) return `'${n}'`;
    if (k < 0.73) return `"${n.slice(0, 1)}"${n.slice(1)}`;
    if (k < 0.76) return `${n.slice(0, 1)}''${n.slice(1)}`;
    if (k < 0.79) return `$'${n}'`;
    if (k < 0.82) return `command ${n}`;
    if (k < 0.84) return `exec ${n}`;
    if (k < 0.87) return `$x`;
    if (k < 0.9 && depth < 2) return `eval ${this.quote(this.simple(depth + 1))}`;
    if (k < 0.93 && depth < 2) return `/bin/bash -c ${this.quote(this.list(depth + 1))}`;
    if (k < 0.95) return `${n}${this.pick(['$x', '${IFS}', '*', '?'])}`;
    return `builtin ${n}`;
  }

  quote(text: string): string {
    return this.chance(0.7) ? `'${text.replace(/'/g, `'\\''`)}'` : `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
  }

  assignment(): string {
    return `${this.pick(ASSIGN_NAMES)}${this.chance(0.1) ? '+=' : '='}${this.chance(0.8) ? this.word(2) : this.pick(NAMES)}`;
  }

  simple(depth: number): string {
    const parts: string[] = [];
    if (this.chance(this.tame ? 0.05 : 0.15)) parts.push(this.assignment());
    if (this.chance(0.05)) parts.push(this.pick(REDIRECTS));
    parts.push(this.name(depth));
    const args = Math.floor(this.r() * 4);
    for (let i = 0; i < args; i++) parts.push(this.word(depth));
    if (this.chance(this.tame ? 0.1 : 0.25))
      parts.push(this.pick(REDIRECTS.slice(0, this.tame ? 5 : undefined)));
    if (this.chance(0.05)) parts.push(this.pick(REDIRECTS));
    return parts.join(' ');
  }

  compound(depth: number): string {
    const k = this.r();
    const inner = () => this.list(depth + 1);
    if (k < 0.1) return `(${inner()})`;
    if (k < 0.2) return `{ ${inner()}; }`;
    if (k < 0.3) return `if ${this.simple(depth + 1)}; then ${inner()}; fi`;
    if (k < 0.38) return `for x in a .env; do ${inner()}; done`;
    if (k < 0.45) return `! ${this.simple(depth + 1)}`;
    if (k < 0.5) return `f() { ${inner()}; }; f`;
    if (k < 0.55) return `case a in a) ${inner()};; esac`;
    if (k < 0.6) return `[[ -n $x ]] && ${this.simple(depth + 1)}`;
    if (k < 0.65) return `(( a[$(id)] )) && ${this.simple(depth + 1)}`;
    if (k < 0.7) return `x=${this.pick(NAMES)}; $x ${this.word(depth + 1)}`;
    if (k < 0.75) return `time ${this.simple(depth + 1)}`;
    if (k < 0.85)
      return `${this.simple(depth + 1)} <<${this.pick(['EOF', "'EOF'", '-EOF', '"EOF"'])}\n${this.pick(['body', '$(id)', '`id`', '$x', 'rm -rf x', ')', '\tEOF'])}\nEOF`;
    if (k < 0.9) return `echo $(cat <<EOF\n${this.pick([')', '$(id)', 'x'])}\nEOF\n)`;
    if (k < 0.95)
      return `x=${this.quote(this.pick(['a[$(id)]', '.env', 'rm', '$(id)']))}; ${this.simple(depth + 1)} $((x))`;
    return `declare -a y=(${this.word(depth + 1)}); ${this.simple(depth + 1)}`;
  }

  statement(depth: number): string {
    return depth < 2 && !this.tame && this.chance(0.25) ? this.compound(depth) : this.simple(depth);
  }

  list(depth = 0): string {
    if (depth === 0) this.tame = this.chance(0.5);
    let out = this.statement(depth);
    const more = Math.floor(this.r() * (depth === 0 ? 4 : 2));
    for (let i = 0; i < more; i++) {
      const sep = this.pick(SEPARATORS);
      // A here-document's body follows its line: only a newline may come right after it.
      out +=
        (out.includes('\nEOF') && !out.endsWith('\n') && sep !== '\n' ? '\n' : sep) + this.statement(depth);
    }
    return out;
  }
}

/** Command names for the fast reader's language: programs, and words it must leave to the grammar. */
const FAST_NAMES = [
  ...NAMES.slice(0, 14),
  '"ls"',
  "'cat'",
  'e"c"ho',
  './run',
  '1',
  '%1',
  '-x',
  '@a',
  'x:y',
  'a=b',
  'export',
  'local',
  'declare',
  'unset',
  'if',
  'then',
  'time',
  'in',
  'done',
  'function',
  'coproc',
  'select',
  'let',
  'eval',
  'command',
  'exec',
  'builtin',
];
/** Words of that language (quoted in every way it allows) and near misses. */
const FAST_WORDS = [
  'a',
  '-la',
  '--x=1',
  'src/a.ts',
  '.env',
  '"a b"',
  "'c d'",
  "''",
  '""',
  '0',
  '1',
  '2',
  '12',
  '22',
  '-',
  '--',
  '-1',
  '-2',
  '--1',
  '+',
  '-e',
  'a"b"c',
  `'a'"b"`,
  '"#"',
  "'#'",
  "'$x'",
  `"a'b"`,
  '"\\\\"',
  "'\\\\'",
  "'!'",
  '.',
  '..',
  'k:v',
  'x,y',
  '@x',
  '%s',
  '=',
  '==',
  '=x',
  'a==b',
  'a=b',
  'if',
  'fi',
  'in',
  '"if"',
  'time',
  'esac',
  '/dev/null',
  'README.md',
  "'('",
  '")"',
  '"{a,b}"',
  "'*'",
  '"~"',
  '.git/config',
  'x-',
  '-/',
];
const FAST_REDIRECTS = [
  '>/dev/null',
  '> /dev/null',
  '2>/dev/null',
  '2> /dev/null',
  '>>out.txt',
  '>> out.txt',
  '2>&1',
  '>&2',
  '1>&2',
  '>out.txt',
  '>"o t"',
  ">'o'",
  '2>&1x',
  '22>x',
  '0>x',
  '9>x',
  '>&-',
  '>|x',
  '&>x',
  '<README.md',
  '2>>out.txt',
  '>&12',
  '> .git/hooks/pre-commit',
];
const FAST_OPS = [
  ' && ',
  ' || ',
  '; ',
  ' | ',
  '&&',
  '||',
  ';',
  '|',
  ' ;',
  '\t&&\t',
  ' |& ',
  ' & ',
  ' ;; ',
  '\n',
];
const FAST_ENDS = [
  ';',
  ' ;',
  '; ',
  ' ',
  ' &&',
  '|',
  ' # x',
  '# x',
  ' #',
  '\t#a $(id)',
  ' # a\nb',
  ' #\u00e9',
  ' ##',
];

/** Lines in (and just outside) the fast reader's language: literal words, lists, pipes, `>` and `2>`. */
export class FastLineGenerator {
  constructor(private readonly r: () => number) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.r() * items.length)] as T;
  }

  command(): string {
    const items = [this.pick(FAST_NAMES)];
    const words = Math.floor(this.r() * 4);
    for (let i = 0; i < words; i++) items.push(this.pick(FAST_WORDS));
    const redirects = Math.floor(this.r() * this.r() * 3);
    for (let i = 0; i < redirects; i++) items.push(this.pick(FAST_REDIRECTS));
    let out = items[0] as string;
    for (const item of items.slice(1)) {
      const k = this.r();
      out += (k < 0.1 && item.startsWith('>') ? '' : k < 0.2 ? '  ' : ' ') + item;
    }
    return out;
  }

  line(): string {
    let out = (this.r() < 0.1 ? ' ' : '') + this.command();
    const more = Math.floor(this.r() * 5);
    for (let i = 0; i < more; i++) out += this.pick(FAST_OPS) + this.command();
    if (this.r() < 0.2) out += this.pick(FAST_ENDS);
    return out;
  }
}
