// Programs that run code given in their own flags or read from their input: interpreters with
// `-c`/`-e`, `git -c`, `npm --node-options`, tar's and rsync's command options, sed's `e`, awk's
// `system()`, and programs that read a script from stdin (`curl ... | python`). The policy cannot
// read that code, so such a command is "opaque": an allow rule must name the flag itself
// (`Bash(python -c:*)`) for it to run without a prompt, and where deny rules name commands it asks
// in every mode. Shells are not here: their scripts are bash and are read (see shell-unwrap.ts).
import { sedScriptIsPlain } from './sed-script.js';
import type { ShellWord } from './shell-words.js';

/** Code a command runs that cannot be read: a rule must name its first `words` words. */
export interface Opaque {
  reason: string;
  words: number;
}

interface CodeFlags {
  /** Short option letters whose value is code (`-c code`, `-ccode`, `-Sc code`). */
  short?: string;
  /** Long options whose value is code (`--eval code`, `--eval=code`). */
  long?: readonly string[];
  /** Words that make it run code wherever they stand (`deno eval`). */
  words?: readonly string[];
  /** With no arguments (or `-`) it reads its program from stdin. */
  readsStdin?: boolean;
  /** Options may follow operands (GNU getopt), so every word is checked. */
  permute?: boolean;
}

const PYTHON: CodeFlags = { short: 'c', readsStdin: true };
const NODE: CodeFlags = { short: 'ep', long: ['--eval', '--print'], readsStdin: true };
const INTERPRETERS: Record<string, CodeFlags> = {
  node: NODE,
  nodejs: NODE,
  bun: { short: 'ep', long: ['--eval', '--print'] },
  deno: { words: ['eval', 'repl'] },
  perl: { short: 'eE', readsStdin: true },
  ruby: { short: 'e', readsStdin: true },
  irb: { readsStdin: true },
  php: { short: 'rBRE', readsStdin: true },
  lua: { short: 'e', readsStdin: true },
  luajit: { short: 'e', readsStdin: true },
  Rscript: { short: 'e' },
  R: { short: 'e', readsStdin: true },
  julia: { short: 'eE', long: ['--eval', '--print'], readsStdin: true },
  osascript: { short: 'e', readsStdin: true },
  tclsh: { readsStdin: true },
  zsh: { short: 'c', readsStdin: true },
  ksh: { short: 'c', readsStdin: true },
  mksh: { short: 'c', readsStdin: true },
  fish: { short: 'c', long: ['--command', '--init-command'], readsStdin: true },
  csh: { short: 'c', readsStdin: true },
  tcsh: { short: 'c', readsStdin: true },
  vim: { short: 'cS', long: ['--cmd'] },
  vi: { short: 'cS', long: ['--cmd'] },
  nvim: { short: 'cS', long: ['--cmd'] },
  ex: { short: 'cS', long: ['--cmd'] },
  emacs: { long: ['--eval', '--load', '--funcall', '--script', '-l', '-f', '-eval', '-load'] },
  gdb: { short: 'x', long: ['-ex', '--ex', '-iex', '--eval-command', '--command', '--init-eval-command'] },
  tar: {
    short: 'IF',
    long: [
      '--to-command',
      '--use-compress-program',
      '--checkpoint-action',
      '--info-script',
      '--new-volume-script',
      '--rsh-command',
      '--rmt-command',
    ],
    permute: true,
  },
  rsync: { short: 'e', long: ['--rsh', '--rsync-path'], permute: true },
  ssh: { short: 'oF' },
  scp: { short: 'oFS', permute: true },
  sftp: { short: 'oFS' },
  sort: { long: ['--compress-program'], permute: true },
  zip: { long: ['--unzip-command', '-TT'], permute: true },
  man: { short: 'PH', long: ['--pager', '--html'], permute: true },
  rg: { long: ['--pre'], permute: true },
  fd: { short: 'xX', long: ['--exec', '--exec-batch'], permute: true },
  fdfind: { short: 'xX', long: ['--exec', '--exec-batch'], permute: true },
  make: { short: 'E', long: ['--eval'], permute: true },
  gmake: { short: 'E', long: ['--eval'], permute: true },
};

/**
 * Programs that run a command given in their arguments, with options the policy does not follow:
 * what they run is code it cannot read (a rule naming the program allows them).
 */
const RUNNERS = new Set([
  'strace',
  'ltrace',
  'valgrind',
  'perf',
  'unshare',
  'nsenter',
  'firejail',
  'proxychains',
  'proxychains4',
  'torsocks',
  'systemd-run',
  'dbus-run-session',
  'dbus-launch',
  'parallel',
  'sem',
  'at',
  'batch',
  'entr',
  'run-parts',
  'ssh-agent',
  'sg',
  'capsh',
  'setpriv',
  'chpst',
  'flatpak-spawn',
  'unbuffer',
  'faketime',
  'catchsegv',
  'xvfb-run',
  'taskset',
  'chrt',
  'numactl',
  'cgexec',
  'prlimit',
  'pkexec',
  'expect',
  'lldb',
]);

/** npm configuration keys that run code or load configuration that can. */
const NPM_CODE_KEYS = new Set([
  'node-options',
  'script-shell',
  'shell',
  'userconfig',
  'globalconfig',
  'init-module',
  'onload-script',
  'call',
  'editor',
  'browser',
  'viewer',
  'git',
  'node-gyp',
]);
const NPM_TOOLS = new Set(['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'yarnpkg']);

/** git options that run code: global ones, and those of some subcommands. */
const GIT_GLOBAL = new Set(['-c', '--config-env', '--exec-path']);
const GIT_ANY = [
  '--upload-pack',
  '--receive-pack',
  '--exec',
  '--extcmd',
  '--open-files-in-pager',
  '--config',
];
const GIT_SHORT: Record<string, string> = {
  clone: 'uc',
  fetch: 'u',
  'ls-remote': 'u',
  archive: '',
  rebase: 'x',
  difftool: 'x',
  grep: 'O',
  pull: '',
};
const GIT_RUNS = [['bisect', 'run'], ['submodule', 'foreach'], ['filter-branch']] as const;

function base(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** The interpreter table entry for a program name (`python3.12` reads as python). */
function interpreterFlags(name: string): CodeFlags | undefined {
  if (/^(python|pypy)[0-9.]*$/.test(name)) return PYTHON;
  return Object.hasOwn(INTERPRETERS, name) ? INTERPRETERS[name] : undefined;
}

/** A script file an interpreter runs: the words after it are the script's own arguments. */
const SCRIPT_FILE = /\.(py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|pl|pm|rb|php|lua|r|jl|tcl|scpt|applescript)$/i;
/** Interpreter options whose value is the next word (a module or a path, not code). */
const VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-I',
  '-M',
  '-W',
  '-X',
  '-C',
]);

/**
 * Index of the first word that passes code through `flags`, or -1. Interpreters stop at their
 * script file (later words are the script's arguments, or a module's after `-m`); programs whose
 * options may follow operands are read to the end.
 */
function codeFlagAt(words: readonly ShellWord[], flags: CodeFlags): number {
  for (let i = 1; i < words.length; i++) {
    const w = (words[i] as ShellWord).value;
    if (flags.words?.includes(w)) return i;
    if (w === '--') return -1;
    if (flags.long?.some((l) => w === l || w.startsWith(`${l}=`))) return i;
    if (/^-[^-]/.test(w) && flags.short && [...w.slice(1)].some((c) => flags.short?.includes(c))) return i;
    if (flags.permute) continue;
    if (w === '-m') return -1;
    if (VALUE_OPTIONS.has(w)) i++;
    else if (!w.startsWith('-') && SCRIPT_FILE.test(w)) return -1;
  }
  return -1;
}

function awkOpaque(words: readonly ShellWord[]): Opaque | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord;
    if (/^(-i|-l|--include|--load|-E|--exec)/.test(w.value))
      return { reason: 'awk loads code', words: i + 1 };
    if (w.value === '-f' || w.value.startsWith('--file')) return undefined;
    if (/^-[vF]$/.test(w.value)) {
      i++;
      continue;
    }
    if (w.value.startsWith('-') && w.value !== '-') continue;
    const program = w.value;
    if (!w.isStatic || /system|getline|[|>]|@|ENVIRON/.test(program))
      return { reason: 'its awk program can run commands or write files', words: i + 1 };
    return undefined;
  }
  return undefined;
}

function sedOpaque(words: readonly ShellWord[]): Opaque | undefined {
  if (words.some((w) => w.value === '--sandbox')) return undefined;
  const scripts: { word: ShellWord; at: number }[] = [];
  let operand = -1;
  for (let i = 1; i < words.length; i++) {
    const v = (words[i] as ShellWord).value;
    if (v === '-e' || v === '--expression' || v === '-f' || v === '--file') {
      if (v === '-f' || v === '--file') return { reason: 'it runs a sed script from a file', words: i + 2 };
      const next = words[i + 1];
      if (next) scripts.push({ word: next, at: i + 1 });
      i++;
    } else if (v.startsWith('--expression=')) {
      scripts.push({ word: { ...(words[i] as ShellWord), value: v.slice(13) }, at: i });
    } else if (/^-[^-]*[ef]/.test(v)) {
      return { reason: 'it passes a sed script in a combined option', words: i + 1 };
    } else if (!v.startsWith('-') && operand === -1) {
      operand = i;
    }
  }
  if (scripts.length === 0 && operand !== -1)
    scripts.push({ word: words[operand] as ShellWord, at: operand });
  const bad = scripts.find((s) => !s.word.isStatic || !sedScriptIsPlain(s.word.value));
  return bad
    ? { reason: 'its sed script can run commands or read and write files', words: bad.at + 1 }
    : undefined;
}

function npmOpaque(words: readonly ShellWord[]): Opaque | undefined {
  for (let i = 1; i < words.length; i++) {
    const v = (words[i] as ShellWord).value;
    if (v === '--') return undefined;
    const key = v.startsWith('--') ? v.slice(2).split('=')[0]?.toLowerCase().replace(/_/g, '-') : undefined;
    if ((key !== undefined && NPM_CODE_KEYS.has(key)) || v === '-c')
      return { reason: `${v.split('=')[0]} makes npm run code`, words: i + 1 };
  }
  return undefined;
}

function gitOpaque(words: readonly ShellWord[]): Opaque | undefined {
  let sub: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const v = (words[i] as ShellWord).value;
    const flag = v.split('=')[0] ?? v;
    if (sub === undefined) {
      if (GIT_GLOBAL.has(flag) || /^-c./.test(v))
        return { reason: `git ${flag} can make git run code`, words: i + 1 };
      if (!v.startsWith('-')) {
        sub = v;
        const run = GIT_RUNS.find((r) => r.every((part, k) => words[i + k]?.value === part));
        if (run) return { reason: `git ${run.join(' ')} runs commands`, words: i + run.length };
      } else if (['-C', '--git-dir', '--work-tree', '--namespace'].includes(v)) i++;
      continue;
    }
    if (v === '--') return undefined;
    if (GIT_ANY.some((l) => flag === l)) return { reason: `git ${sub} ${flag} runs a command`, words: i + 1 };
    const short = GIT_SHORT[sub];
    if (short && /^-[^-]/.test(v) && [...v.slice(1)].some((c) => short.includes(c)))
      return { reason: `git ${sub} ${v} runs a command`, words: i + 1 };
  }
  return undefined;
}

const GIT_CONFIG_READS =
  /^(--get(-all|-regexp|-urlmatch|-color(bool)?)?|--list|-l|--show-origin|--show-scope|--global|--system|--file|-f|--blob|get|list)$/;

/**
 * Files a command writes without naming them: `git config key value` (and `git remote add`, ...)
 * writes `.git/config`, `git submodule add` also `.gitmodules`; paths relative to where it runs.
 */
export function impliedWrites(words: readonly ShellWord[]): string[] {
  if (base(words[0]?.value ?? '') !== 'git') return [];
  let i = 1;
  while (i < words.length && words[i]?.value.startsWith('-'))
    i += /^(-C|-c|--git-dir|--work-tree)$/.test(words[i]?.value ?? '') ? 2 : 1;
  const sub = words[i]?.value;
  const rest = words.slice(i + 1);
  if (sub === 'config') {
    if (rest.some((w) => !w.isStatic || GIT_CONFIG_READS.test(w.value))) return [];
    return rest.filter((w) => !w.value.startsWith('-')).length >= 2 ||
      rest.some((w) =>
        /^--(unset|add|replace-all|rename-section|remove-section|edit)|^-e$|^(set|unset)$/.test(w.value),
      )
      ? ['.git/config']
      : [];
  }
  if (sub === 'remote' && /^(add|set-url|rename|remove|rm|set-head|set-branches)$/.test(rest[0]?.value ?? ''))
    return ['.git/config'];
  if (sub === 'submodule' && rest[0]?.value === 'add') return ['.gitmodules', '.git/config'];
  return [];
}

/** Code `words` (a command, name first, wrappers already peeled) runs that cannot be read, if any. */
export function opaqueCode(words: readonly ShellWord[]): Opaque | undefined {
  const first = words[0];
  if (!first?.isStatic) return undefined;
  const name = base(first.value);
  if (name === 'git') return gitOpaque(words);
  if (NPM_TOOLS.has(name)) return npmOpaque(words);
  if (/^(g|m|n)?awk$/.test(name)) return awkOpaque(words);
  if (name === 'sed' || name === 'gsed') return sedOpaque(words);
  if (RUNNERS.has(name))
    return { reason: `${name} runs a command in a way the policy does not follow`, words: 1 };
  if (name === 'source' || name === '.')
    return { reason: 'it runs a file in this shell, where it can redefine any command', words: words.length };
  const flags = interpreterFlags(name);
  if (!flags) return undefined;
  const at = codeFlagAt(words, flags);
  if (at !== -1) {
    const flag = words[at]?.value.split('=')[0] ?? '';
    return { reason: `${name} ${flag} runs code given on the command line`, words: at + 1 };
  }
  if (flags.readsStdin && (words.length === 1 || words.slice(1).some((w) => w.value === '-')))
    return { reason: `${name} runs code read from its input`, words: words.length };
  return undefined;
}
