// Reads one simple command the way rules should see it: the environment it is given (assignments
// that are not known to be harmless stay part of what a rule must match), wrappers (`sudo`,
// `timeout 10`, `env A=1`, `nice -n 5`, `nohup`, `xargs`, `command`, `exec`, ...) peeled one by one,
// scripts handed to `bash -c`, `eval`, `env -S`, `watch` or `su -c` returned to be read as command
// lines of their own, commands `find -exec` and `xargs` run, and code the policy cannot read
// (see shell-programs.ts) marked opaque.
import type { ShellPart } from './shell-read.js';
import { opaqueCode, type Opaque } from './shell-programs.js';
import { literalWord, type ShellWord } from './shell-words.js';

/** A command another command runs: `open` when more words are added when it runs (xargs). */
export interface RunCommand {
  words: ShellWord[];
  open: boolean;
}

/** A command as rules see it. */
export interface CommandView {
  /** Word lists to match, outermost first: the command as written, then after each wrapper. */
  forms: ShellWord[][];
  /** `NAME=value` words the command is given that are not known harmless; allow rules must name them. */
  env: ShellWord[];
  /** A privilege wrapper (`sudo`, `doas`) was peeled: allowing needs the outer form allowed too. */
  privileged: boolean;
  /** Scripts this command runs, to be read as command lines of their own. */
  scripts: string[];
  /** Commands this command runs (`find -exec`, `xargs`). */
  commands: RunCommand[];
  /** Code it runs that cannot be read, with the form it was found in (-1: `env` and the last form). */
  opaque: (Opaque & { form: number })[];
  /** Why the command cannot be judged statically. */
  unclear: string[];
  /** `cd`: the directory later commands run in (undefined target: known only when it runs). */
  chdir?: { target?: ShellWord };
}

/** Environment variables known not to make a program run other code or load other files. */
const HARMLESS_ENV =
  /^(NODE_ENV|CI|DEBUG|FORCE_COLOR|NO_COLOR|COLORTERM|TERM|TZ|LANG|LANGUAGE|LC_[A-Z]+|COLUMNS|LINES|RUST_LOG|RUST_BACKTRACE|GOOS|GOARCH|GOEXPERIMENT|CGO_ENABLED|GO111MODULE|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTHONIOENCODING|PYTEST_DISABLE_PLUGIN_AUTOLOAD|TIME_STYLE|LS_COLORS|GREP_COLORS|VERBOSE|PORT|HOST)$/;

/** Options that take a value, per wrapper (short letters and long names). */
interface WrapperSpec {
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

/** Shells whose `-c` script is bash syntax and is read as a command line. */
const SHELLS = new Set(['bash', 'sh', 'dash', 'rbash']);
/** Shell options that change how a script is read (or read startup files first). */
const SHELL_READING = /^([-+]O|[-+]o|--posix|--rcfile|--init-file|-[a-zA-Z]*[iksD])$/;
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
/** Builtins that change how later commands run, or run code from a string. */
const STATEFUL: Record<string, string> = {
  shopt: 'it changes shell options, and with them how later commands are read',
  alias: 'it defines an alias',
  unalias: 'it changes aliases',
  enable: 'it enables or loads shell builtins',
  hash: 'it changes which program a command name runs',
  trap: 'it runs a command on a signal',
  let: 'it evaluates arithmetic, which can run commands through array indexes',
  fc: 'it re-runs commands from history',
  bind: 'it binds keys to commands',
  complete: 'it registers completion commands',
  compgen: 'it can run completion commands',
  mapfile: 'it can run a callback',
  readarray: 'it can run a callback',
  coproc: 'it starts a coprocess',
  pushd: 'it changes to a directory known only when it runs',
  popd: 'it changes to a directory known only when it runs',
  declare: 'it declares variables',
  typeset: 'it declares variables',
};
/** `set` options that leave reading unchanged. */
const SET_HARMLESS =
  /^([-+][euxvEhTBCbmo]+|pipefail|errexit|nounset|xtrace|verbose|noclobber|errtrace|functrace)$/;
/**
 * Environment variables that make programs run other code, load other files or find other
 * programs (any letter case): a command given one runs code the policy cannot read.
 */
const CODE_ENV =
  /^(npm_config_\w+|yarn_\w+|pnpm_\w+|node_options|node_path|ld_\w+|dyld_\w+|bash_env|env|bash_func_\S*|shellopts|bashopts|ps4|prompt_command|python(startup|path|home|inspect)|perl5?(opt|lib|db)|rubyopt|rubylib|git_\w+|\w*pager|editor|visual|less(open|close)|(jdk_)?java_(tool_)?options|_java_options|classpath|path|home|xdg_config_home|cargo_\w+|rustc_wrapper|rustflags|goflags|cc|cxx|cflags|ldflags|makeflags|mflags|shell|browser|\w*_askpass|lua_init\w*|lua_path|phprc|php_ini_scan_dir|r_profile\w*|electron_run_as_node|corepack_\w+|pip_\w+|gem_\w+|bundle_\w+)$/i;

function baseName(word: ShellWord): string {
  return word.value.slice(word.value.lastIndexOf('/') + 1);
}

function joined(words: readonly ShellWord[]): string | undefined {
  return words.every((w) => w.isStatic) ? words.map((w) => w.value).join(' ') : undefined;
}

/** Builds the rule view of one part. */
export function viewCommand(part: ShellPart): CommandView {
  const view: CommandView = {
    forms: [],
    env: [],
    privileged: false,
    scripts: [],
    commands: [],
    opaque: [],
    unclear: [],
  };
  for (const a of part.assignments) {
    if (a.value.isStatic && !a.append && HARMLESS_ENV.test(a.name)) continue;
    view.env.push({
      ...a.value,
      value: `${a.name}${a.append ? '+=' : '='}${a.value.value}`,
      isStatic: a.value.isStatic && !a.append,
    });
  }
  const code = part.assignments.find((a) => CODE_ENV.test(a.name));
  if (code && part.words.length > 0)
    view.opaque.push({
      reason: `${code.name} makes programs run other code`,
      words: view.env.length,
      form: -1,
    });
  if (part.words.length === 0) {
    // Without a command, assignments stay in the shell: harmless unless bash or later commands read them.
    const special = part.assignments.find((a) =>
      /^(PATH|HOME|IFS|CDPATH|GLOBIGNORE|ENV|BASH.*|SHELLOPTS|POSIXLY_CORRECT|PS4|PROMPT_COMMAND|EXECIGNORE|FUNCNEST)$/.test(
        a.name,
      ),
    );
    if (special) view.unclear.push(`it sets ${special.name}, which changes how later commands run`);
    return view;
  }
  peel(part.words, view, 0);
  return view;
}

function peel(words: ShellWord[], view: CommandView, depth: number): void {
  const first = words[0];
  if (first === undefined) return;
  view.forms.push(words);
  if (!first.isStatic) {
    view.unclear.push(`the command name is only known when it runs (${first.why ?? 'it expands'})`);
    return;
  }
  if (depth > 8) {
    view.unclear.push('it nests wrappers too deeply');
    return;
  }
  const name = baseName(first);
  const form = view.forms.length - 1;
  if (name === 'eval') {
    const script = joined(words.slice(1));
    if (script === undefined)
      view.opaque.push({ reason: 'eval runs text computed when it runs', words: words.length, form });
    else view.scripts.push(script);
    return;
  }
  if (name === 'cd') return changeDirectory(words, view);
  if (name === 'set' && !words.slice(1).every((w) => w.isStatic && SET_HARMLESS.test(w.value)))
    view.opaque.push({
      reason: 'it sets shell options that change how later commands run',
      words: words.length,
      form,
    });
  if (Object.hasOwn(STATEFUL, name))
    view.opaque.push({ reason: STATEFUL[name] as string, words: words.length, form });
  if (SHELLS.has(name)) return shellScript(words, view, form);
  if (name === 'find') return findExec(words, view);
  if (name === 'watch') {
    const rest = skipOptions(words.slice(1), { withValue: 'nqd', longWithValue: ['interval'] });
    const script = rest === undefined ? undefined : joined(rest);
    if (rest !== undefined && rest.length > 0) {
      if (script === undefined)
        view.opaque.push({ reason: 'watch runs text computed when it runs', words: words.length, form });
      else view.scripts.push(script);
    }
    return;
  }
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (!spec) {
    const opaque = opaqueCode(words);
    if (opaque) view.opaque.push({ ...opaque, form });
    return;
  }
  unwrap(words, spec, name, view, depth, form);
}

function unwrap(
  words: ShellWord[],
  spec: WrapperSpec,
  name: string,
  view: CommandView,
  depth: number,
  form: number,
): void {
  if (name === 'env' && envSplit(words, view, depth, form)) return;
  if (spec.script) {
    const at = words.findIndex((w, k) => k > 0 && (w.value === `-${spec.script}` || w.value === '--command'));
    if (at !== -1) {
      const script = words[at + 1];
      if (script?.isStatic) view.scripts.push(script.value);
      else view.opaque.push({ reason: `${name} runs text computed when it runs`, words: words.length, form });
      if (spec.privileged) view.privileged = true;
      return;
    }
  }
  let rest = skipOptions(words.slice(1), spec);
  if (rest === undefined) return;
  if (name === 'env') rest = envAssignments(rest, view, words, form);
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
function envSplit(words: ShellWord[], view: CommandView, depth: number, form: number): boolean {
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
function skipOptions(words: ShellWord[], spec: WrapperSpec): ShellWord[] | undefined {
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

/** `bash -c 'script'`: the script is a command line of its own; no script means stdin or a file. */
function shellScript(words: ShellWord[], view: CommandView, form: number): void {
  let runsScript = false;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i] as ShellWord;
    if (!w.isStatic) break;
    if (w.value === '--' || w.value === '-') {
      i++;
      break;
    }
    if (!/^[-+]/.test(w.value)) break;
    if (SHELL_READING.test(w.value))
      view.opaque.push({ reason: `${w.value} changes how the shell reads its script`, words: i + 1, form });
    if (/^[-+][oO]$|^--(rcfile|init-file)$/.test(w.value)) i++;
    else if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w.value)) runsScript = true;
  }
  const operand = words[i];
  if (runsScript) {
    if (operand?.isStatic) view.scripts.push(operand.value);
    else
      view.opaque.push({
        reason: `${words[0]?.value} -c runs text computed when it runs`,
        words: words.length,
        form,
      });
  } else if (operand === undefined) {
    view.opaque.push({
      reason: `${words[0]?.value} runs commands read from its input`,
      words: words.length,
      form,
    });
  }
}

/** `find ... -exec cmd args ;` runs `cmd args` for each file (`{}` is the file). */
function findExec(words: ShellWord[], view: CommandView): void {
  for (let i = 1; i < words.length; i++) {
    if (!FIND_EXEC.has((words[i] as ShellWord).value)) continue;
    const inner: ShellWord[] = [];
    let j = i + 1;
    for (; j < words.length; j++) {
      const w = words[j] as ShellWord;
      if (w.value === ';' || w.value === '+') break;
      inner.push(
        w.value.includes('{}')
          ? { ...w, isStatic: false, why: 'find puts a file name there', inserted: true }
          : w,
      );
    }
    if (inner.length > 0) view.commands.push({ words: inner, open: false });
    i = j;
  }
}

/** `cd DIR`: later relative paths are resolved there (or are unknown). */
function changeDirectory(words: ShellWord[], view: CommandView): void {
  const args = words.slice(1).filter((w) => !/^-[LPe@]+$/.test(w.value));
  const target = args[0];
  if (args.length > 1 || (target !== undefined && (target.value === '-' || target.patterns.length !== 1))) {
    view.chdir = {};
    view.unclear.push('it changes to a directory known only when it runs');
    return;
  }
  view.chdir = target === undefined ? { target: literalWord('~') } : { target };
}
