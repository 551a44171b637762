// Reads one simple command the way rules should see it: shell keywords and `VAR=value` prefixes
// stripped, wrappers (`sudo`, `timeout 10`, `env A=1`, `nice -n 5`, `nohup`, `xargs`, `time`,
// `command`, `exec`, ...) peeled one by one, and scripts handed to `bash -c`, `eval` or
// `find -exec` returned as commands of their own.
import type { ShellCommand, ShellWord } from './shell-parse.js';

/** A command as rules see it. */
export interface CommandView {
  /** Word lists to match, outermost first: the command as written, then after each wrapper. */
  forms: string[][];
  /** A privilege wrapper (`sudo`, `doas`) was peeled: allowing needs the outer form allowed too. */
  privileged: boolean;
  /** Scripts run by this command (`bash -c`, `eval`, `env -S`, `watch`). */
  scripts: string[];
  /** Commands run by this command, already split into words (`find -exec`). */
  commands: ShellWord[][];
  /** Reasons the command cannot be judged statically (the policy asks). */
  unclear: string[];
  /** No command runs (only keywords or assignments). */
  empty: boolean;
}

const LEADING_KEYWORDS = new Set([
  '!',
  '{',
  '}',
  'then',
  'do',
  'else',
  'if',
  'elif',
  'while',
  'until',
  'fi',
  'done',
  'esac',
]);
const HEAD_ONLY = new Set(['for', 'select']);
const UNSUPPORTED = new Set(['case', 'function', 'coproc']);
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;
/** Variables that change which program runs or what it loads: setting them can turn an allowed command into another. */
const RISKY_VARIABLE =
  /^(PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|IFS|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|PS4|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|GIT_[A-Z_]+|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|NPM_CONFIG_[A-Z_]+|npm_config_[a-z_]+|HOME|XDG_CONFIG_HOME)$/;

/** Options that take a value, per wrapper (short letters and long names). */
interface WrapperSpec {
  withValue: string;
  longWithValue?: readonly string[];
  /** A positional argument before the command (timeout's duration). */
  positional?: number;
  privileged?: boolean;
  /** Options that mean "no command follows" (`command -v`). */
  notWrapping?: string;
  /** Default command when none follows (xargs runs echo). */
  fallback?: string;
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    withValue: 'ughpCDrtUTR',
    longWithValue: [
      'user',
      'group',
      'host',
      'prompt',
      'close-from',
      'chdir',
      'role',
      'type',
      'other-user',
      'command-timeout',
      'chroot',
    ],
    privileged: true,
    notWrapping: 'lvkKVe',
  },
  doas: { withValue: 'uC', privileged: true },
  timeout: { withValue: 'sk', longWithValue: ['signal', 'kill-after'], positional: 1 },
  nice: { withValue: 'n', longWithValue: ['adjustment'] },
  nohup: { withValue: '' },
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
  time: { withValue: 'fo', longWithValue: ['format', 'output'] },
  command: { withValue: '', notWrapping: 'vV' },
  exec: { withValue: 'a' },
  builtin: { withValue: '' },
  stdbuf: { withValue: 'ioe', longWithValue: ['input', 'output', 'error'] },
  ionice: { withValue: 'cnt', longWithValue: ['class', 'classdata'], notWrapping: 'p' },
  busybox: { withValue: '' },
  env: { withValue: 'uCS', longWithValue: ['unset', 'chdir', 'split-string'] },
};

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'fish']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** Builds the rule view of one parsed command. */
export function viewCommand(cmd: ShellCommand): CommandView {
  const view: CommandView = {
    forms: [],
    privileged: false,
    scripts: [],
    commands: [],
    unclear: [],
    empty: false,
  };
  let words = [...cmd.words];
  while (
    words.length > 0 &&
    !(words[0] as ShellWord).quoted &&
    LEADING_KEYWORDS.has((words[0] as ShellWord).value)
  )
    words.shift();
  const head = words[0];
  if (head === undefined || (!head.quoted && HEAD_ONLY.has(head.value))) {
    view.empty = true;
    return view;
  }
  if (!head.quoted && UNSUPPORTED.has(head.value)) {
    view.unclear.push(`it uses "${head.value}", which is not analysed`);
    return view;
  }
  words = stripAssignments(words, view);
  if (words.length === 0) {
    view.empty = view.unclear.length === 0;
    return view;
  }
  peel(words, view, 0);
  return view;
}

function stripAssignments(words: ShellWord[], view: CommandView): ShellWord[] {
  let i = 0;
  for (; i < words.length; i++) {
    const m = ASSIGNMENT.exec((words[i] as ShellWord).value);
    if (!m) break;
    if (RISKY_VARIABLE.test(m[1] ?? '')) view.unclear.push(`it sets ${m[1]}, which can change what runs`);
  }
  return words.slice(i);
}

function peel(words: ShellWord[], view: CommandView, depth: number): void {
  const first = words[0];
  if (first === undefined) return;
  if (first.dynamic) {
    view.forms.push(words.map((w) => w.value));
    view.unclear.push('the command name is computed when it runs');
    return;
  }
  view.forms.push(words.map((w) => w.value));
  if (depth > 8) return;
  const name = first.value;
  const base = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
  if (base === 'eval') {
    view.scripts.push(
      words
        .slice(1)
        .map((w) => w.value)
        .join(' '),
    );
    if (words.slice(1).some((w) => w.dynamic)) view.unclear.push('eval runs text computed when it runs');
    return;
  }
  if (SHELLS.has(base)) {
    shellScript(words, view);
    return;
  }
  if (base === 'find') {
    findExec(words, view);
    return;
  }
  if (base === 'watch') {
    const rest = skipOptions(words.slice(1), { withValue: 'nq', longWithValue: ['interval'] });
    if (rest !== undefined && rest.length > 0) view.scripts.push(rest.map((w) => w.value).join(' '));
    return;
  }
  const spec = WRAPPERS[base];
  if (!spec) return;
  if (base === 'env') {
    const split = words.findIndex(
      (w, k) => k > 0 && (w.value === '-S' || w.value.startsWith('--split-string')),
    );
    if (split !== -1) {
      const arg = words[split]?.value.includes('=')
        ? words[split]?.value.split('=').slice(1).join('=')
        : words[split + 1]?.value;
      if (arg !== undefined) view.scripts.push(arg);
      return;
    }
  }
  let rest = skipOptions(words.slice(1), spec);
  if (rest === undefined) return;
  if (base === 'env') rest = stripAssignments(rest, view);
  if (spec.positional) rest = rest.slice(spec.positional);
  if (rest.length === 0) {
    if (spec.fallback) view.forms.push([spec.fallback]);
    return;
  }
  if (spec.privileged) view.privileged = true;
  peel(rest, view, depth + 1);
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

/** `bash -c 'script'` (any flags clustered with `c`): the script is a command list of its own. */
function shellScript(words: ShellWord[], view: CommandView): void {
  for (let i = 1; i < words.length; i++) {
    const w = (words[i] as ShellWord).value;
    if (w === '--' || !w.startsWith('-') || w.startsWith('--')) {
      if (w.startsWith('--')) continue;
      return;
    }
    if (w === '-o' || w === '+o') {
      i++;
      continue;
    }
    if (w.slice(1).includes('c')) {
      const script = words[i + 1];
      if (script === undefined) return;
      view.scripts.push(script.value);
      if (script.dynamic)
        view.unclear.push(`${(words[0] as ShellWord).value} -c runs text computed when it runs`);
      return;
    }
  }
}

/** `find ... -exec cmd args ;` runs `cmd args` for each file. */
function findExec(words: ShellWord[], view: CommandView): void {
  for (let i = 1; i < words.length; i++) {
    if (!FIND_EXEC.has((words[i] as ShellWord).value)) continue;
    const inner: ShellWord[] = [];
    let j = i + 1;
    for (; j < words.length; j++) {
      const v = (words[j] as ShellWord).value;
      if (v === ';' || v === '+') break;
      inner.push(words[j] as ShellWord);
    }
    if (inner.length > 0) view.commands.push(inner);
    i = j;
  }
}
