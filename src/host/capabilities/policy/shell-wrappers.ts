// The wrappers a command can hide behind (`sudo`, `timeout 10`, `env A=1`, `nice -n 5`, `nohup`,
// `xargs`, `command`, `exec`, `su -c`, ...): their options, and how each is peeled to reach the
// command it runs, with the environment `env` gives it and the scripts `-c` options hand over.
import type { CommandView } from './shell-unwrap.js';
import { literalWord, sourceValue, type ShellWord } from './shell-words.js';

/** Environment variables known not to make a program run other code or load other files. */
export const HARMLESS_ENV =
  /^(NODE_ENV|CI|DEBUG|FORCE_COLOR|NO_COLOR|COLORTERM|TERM|TZ|LANG|LANGUAGE|LC_[A-Z]+|COLUMNS|LINES|RUST_LOG|RUST_BACKTRACE|GOOS|GOARCH|GOEXPERIMENT|CGO_ENABLED|GO111MODULE|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTHONIOENCODING|PYTEST_DISABLE_PLUGIN_AUTOLOAD|TIME_STYLE|LS_COLORS|GREP_COLORS|VERBOSE|PORT|HOST)$/;

/**
 * Environment variables that make programs run other code, load other files or find other
 * programs (any letter case): a command given one runs code the policy cannot read.
 */
export const CODE_ENV =
  /^(npm_config_\w+|yarn_\w+|pnpm_\w+|node_options|node_path|ld_\w+|dyld_\w+|bash_env|env|bash_func_\S*|shellopts|bashopts|ps4|prompt_command|python(startup|path|home|inspect)|perl5?(opt|lib|db)|rubyopt|rubylib|git_\w+|\w*pager|editor|visual|less(open|close)|(jdk_)?java_(tool_)?options|_java_options|classpath|path|home|xdg_config_home|cargo_\w+|rustc_wrapper|rustflags|goflags|cc|cxx|cflags|ldflags|makeflags|mflags|shell|browser|\w*_askpass|lua_init\w*|lua_path|phprc|php_ini_scan_dir|r_profile\w*|electron_run_as_node|corepack_\w+|pip_\w+|gem_\w+|bundle_\w+)$/i;

/** Options that take a value, per wrapper (short letters and long names). */
export interface WrapperSpec {
  withValue: string;
  longWithValue?: readonly string[];
  /** Positional arguments before the command (timeout's duration, chroot's directory). */
  positional?: number;
  privileged?: boolean;
  /** Options that mean "no command follows" (`command -v`). */
  notWrapping?: string;
  /** Options whose value is a script (`su -c`, `flock -c`). */
  script?: string;
  /** Default command when none follows (xargs runs echo). */
  fallback?: string;
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    withValue: 'ughpCDrtUTR',
    longWithValue: ['user', 'group', 'host', 'prompt', 'close-from', 'chdir', 'role', 'type', 'other-user'],
    privileged: true,
    notWrapping: 'lvkKVe',
  },
  doas: { withValue: 'uC', privileged: true },
  su: {
    withValue: 'gGsw',
    longWithValue: ['group', 'shell', 'whitelist-environment'],
    privileged: true,
    script: 'c',
  },
  runuser: { withValue: 'ugGs', longWithValue: ['user', 'group', 'shell'], privileged: true, script: 'c' },
  timeout: { withValue: 'sk', longWithValue: ['signal', 'kill-after'], positional: 1 },
  nice: { withValue: 'n', longWithValue: ['adjustment'] },
  nohup: { withValue: '' },
  setsid: { withValue: '' },
  time: { withValue: 'fo', longWithValue: ['format', 'output'] },
  command: { withValue: '', notWrapping: 'vV' },
  exec: { withValue: 'a' },
  builtin: { withValue: '' },
  stdbuf: { withValue: 'ioe', longWithValue: ['input', 'output', 'error'] },
  ionice: { withValue: 'cnt', longWithValue: ['class', 'classdata'], notWrapping: 'p' },
  chroot: { withValue: '', longWithValue: ['userspec', 'groups'], positional: 1, privileged: true },
  flock: {
    withValue: 'wEc',
    longWithValue: ['timeout', 'conflict-exit-code', 'command'],
    positional: 1,
    script: 'c',
  },
  script: {
    withValue: 'cEIOT',
    longWithValue: ['command', 'echo', 'log-in', 'log-out', 'log-timing'],
    script: 'c',
  },
  busybox: { withValue: '' },
  env: { withValue: 'uCS', longWithValue: ['unset', 'chdir', 'split-string'] },
  xargs: {
    withValue: 'adEILnPs',
    longWithValue: [
      'arg-file',
      'delimiter',
      'eof',
      'replace',
      'max-lines',
      'max-args',
      'max-procs',
      'max-chars',
      'process-slot-var',
    ],
    fallback: 'echo',
  },
};

/** The wrapper named `name`, if it is one. */
export function wrapperSpec(name: string): WrapperSpec | undefined {
  return Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
}

/** Peels the next command (the caller's recursion). */
export type Peel = (words: ShellWord[], view: CommandView, depth: number) => void;

/**
 * Peels the wrapper `name` (`words[0]`, the view's form number `form`) and hands the command it runs
 * to `peel`; scripts, xargs' command and what cannot be read go into the view.
 */
export function unwrap(words: ShellWord[], name: string, view: CommandView, depth: number, peel: Peel): void {
  const spec = wrapperSpec(name);
  if (!spec) return;
  const form = view.forms.length - 1;
  if (name === 'env' && envSplit(words, view, depth, peel)) return;
  if (spec.script) {
    const at = words.findIndex((w, k) => k > 0 && (w.value === `-${spec.script}` || w.value === '--command'));
    if (at !== -1) {
      const script = words[at + 1];
      // Read even when only known when it runs (by its source text): the guards still see it.
      if (script) view.scripts.push(sourceValue(script));
      if (!script?.isStatic)
        view.opaque.push({ reason: `${name} runs text computed when it runs`, words: words.length, form });
      if (spec.privileged) view.privileged = true;
      return;
    }
  }
  let rest = skipOptions(words.slice(1), spec);
  if (rest === undefined) return;
  // The `time` keyword times a whole command, assignments before its name included.
  if (name === 'env' || (name === 'time' && words[0]?.text === 'time'))
    rest = envAssignments(rest, view, words, form);
  if (spec.positional) rest = rest.slice(spec.positional);
  if (rest.length === 0) {
    if (spec.fallback) view.commands.push({ words: [literalWord(spec.fallback)], open: true });
    else if (name === 'su' || name === 'runuser')
      view.opaque.push({ reason: `${name} starts a shell that reads its input`, words: words.length, form });
    return;
  }
  if (spec.privileged) view.privileged = true;
  if (name === 'xargs') {
    view.commands.push({ words: replaceMarks(words, rest), open: true });
    return;
  }
  peel(rest, view, depth + 1);
}

/** xargs -I/-i/--replace puts input into the words holding the mark: those words are unknown. */
function replaceMarks(all: ShellWord[], rest: ShellWord[]): ShellWord[] {
  const at = all.findIndex((w) => /^(-I|-i|--replace)/.test(w.value));
  if (at === -1) return rest;
  const flag = all[at] as ShellWord;
  const mark =
    flag.value === '-I' ? all[at + 1]?.value : flag.value.replace(/^(-I|-i|--replace=?)/, '') || '{}';
  if (mark === undefined || mark === '') return rest;
  return rest.map((w) =>
    w.value.includes(mark) ? { ...w, isStatic: false, why: 'xargs puts its input there', inserted: true } : w,
  );
}

/** `env A=1 B=2 cmd`: the assignments join the command's environment. */
function envAssignments(rest: ShellWord[], view: CommandView, all: ShellWord[], form: number): ShellWord[] {
  let i = 0;
  for (; i < rest.length; i++) {
    const w = rest[i] as ShellWord;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(w.value);
    if (!m) break;
    if (!(w.isStatic && HARMLESS_ENV.test(m[1] ?? ''))) view.env.push(w);
    if (CODE_ENV.test(m[1] ?? ''))
      view.opaque.push({ reason: `${m[1]} makes programs run other code`, words: all.length, form });
  }
  if (all.some((w) => w.value === '-C' || w.value.startsWith('--chdir')))
    view.opaque.push({ reason: 'env -C runs the command in another directory', words: all.length, form });
  return rest.slice(i);
}

/** `env -S 'cmd args'`: split on spaces when the string is plain, else opaque. */
function envSplit(words: ShellWord[], view: CommandView, depth: number, peel: Peel): boolean {
  const form = view.forms.length - 1;
  const at = words.findIndex(
    (w, k) => k > 0 && (w.value === '-S' || w.value.startsWith('--split-string') || /^-[^-]*S/.test(w.value)),
  );
  if (at === -1) return false;
  const w = words[at] as ShellWord;
  const inline = w.value.startsWith('--split-string=')
    ? w.value.slice(15)
    : w.value.length > 2 && w.value !== '-S' && !w.value.startsWith('--')
      ? w.value.slice(w.value.indexOf('S') + 1)
      : undefined;
  const arg = inline !== undefined && inline !== '' ? w : words[at + 1];
  const text = inline !== undefined && inline !== '' ? inline : arg?.value;
  if (!arg?.isStatic || text === undefined || !/^[A-Za-z0-9 _./:,+@%=-]*$/.test(text)) {
    view.opaque.push({ reason: 'env -S splits a string in its own way', words: words.length, form });
    return true;
  }
  const split = text
    .split(' ')
    .filter((s) => s !== '')
    .map(literalWord);
  const after = words.slice(at + (arg === w ? 1 : 2));
  const rest = envAssignments([...split, ...after], view, words, form);
  if (rest.length > 0) peel(rest, view, depth + 1);
  return true;
}

/** Skips a wrapper's options; undefined when an option means the wrapper runs nothing. */
export function skipOptions(words: ShellWord[], spec: WrapperSpec): ShellWord[] | undefined {
  let i = 0;
  while (i < words.length) {
    const w = (words[i] as ShellWord).value;
    if (w === '--') return words.slice(i + 1);
    if (!w.startsWith('-') || w === '-') break;
    if (w.startsWith('--')) {
      const [long] = w.slice(2).split('=');
      i += spec.longWithValue?.includes(long ?? '') && !w.includes('=') ? 2 : 1;
      continue;
    }
    // A cluster of short flags: a value-taking letter consumes the rest, or the next word.
    const letters = w.slice(1);
    if (/^\d+$/.test(letters)) {
      i++;
      continue;
    }
    let consumedNext = false;
    for (let k = 0; k < letters.length; k++) {
      const letter = letters[k] ?? '';
      if (spec.notWrapping?.includes(letter)) return undefined;
      if (spec.withValue.includes(letter)) {
        consumedNext = k === letters.length - 1;
        break;
      }
    }
    i += consumedNext ? 2 : 1;
  }
  return words.slice(i);
}
