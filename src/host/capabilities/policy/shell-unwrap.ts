// Reads one simple command the way rules should see it: the environment it is given (assignments
// that are not known to be harmless stay part of what a rule must match), wrappers (`sudo`,
// `timeout 10`, `env A=1`, `nice -n 5`, `nohup`, `xargs`, `command`, `exec`, ...) peeled one by one,
// scripts handed to `bash -c`, `eval`, `env -S`, `watch` or `su -c` returned to be read as command
// lines of their own, commands `find -exec` and `xargs` run, and code the policy cannot read
// (see shell-programs.ts) marked opaque.
import type { ShellPart } from './shell-read.js';
import { impliedWrites, opaqueCode, type Opaque } from './shell-programs.js';
import { CODE_ENV, HARMLESS_ENV, skipOptions, unwrap, wrapperSpec } from './shell-wrappers.js';
import { literalWord, sourceValue, type ShellWord } from './shell-words.js';
/** A command another command runs: `open` when more words are added when it runs (xargs). */
interface RunCommand {
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
  /** Files it writes without naming them (`git config` writes `.git/config`). */
  writes: string[];
}

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
/** Shell variables that change how later commands run, or which program a name runs. */
const SHELL_SPECIAL =
  /^(PATH|HOME|IFS|CDPATH|GLOBIGNORE|ENV|BASH.*|SHELLOPTS|POSIXLY_CORRECT|PS4|PROMPT_COMMAND|EXECIGNORE|FUNCNEST)$/;
/** For builtins that take a variable's name after an option: that option. */
const NAME_AFTER: Record<string, string> = { printf: '-v', wait: '-p', test: '-v', '[': '-v' };

/**
 * The words a builtin treats as variable names: `read` and `getopts` assign to theirs, `printf -v`
 * and `wait -p` to the one after the option, `test -v` (and `-R`) looks one up. Over-inclusive on
 * purpose (an option's value counts too): a word wrongly taken for a name only costs a prompt.
 */
function variableNameWords(name: string, words: readonly ShellWord[]): ShellWord[] {
  const args = words.slice(1);
  if (name === 'read') return args;
  if (name === 'getopts') return args.slice(1);
  const option = NAME_AFTER[name];
  if (option === undefined) return [];
  const found: ShellWord[] = [];
  args.forEach((w, i) => {
    const next = args[i + 1];
    if ((w.value === option || (name !== 'printf' && name !== 'wait' && w.value === '-R')) && next)
      found.push(next);
    else if (w.value.startsWith(option) && w.value.length > option.length)
      found.push({ ...w, value: w.value.slice(option.length) });
  });
  return found;
}

/**
 * Why a builtin's variable-name argument makes the command unjudgeable: bash evaluates an array
 * index there (`read 'a[$(rm x)]'` runs `rm x`), and assigning PATH or HOME this way changes which
 * program or config the next command uses, just as `PATH=...` does.
 */
function variableNameProblem(name: string, words: readonly ShellWord[]): string | undefined {
  for (const w of variableNameWords(name, words)) {
    if (w.value.includes('['))
      return `${name} evaluates the array index in ${w.text}, which can run commands`;
    if (SHELL_SPECIAL.test(w.value) || CODE_ENV.test(w.value))
      return `${name} sets ${w.value}, which changes how later commands run`;
  }
  return undefined;
}

/** `set` options that leave reading unchanged. */
const SET_HARMLESS =
  /^([-+][euxvEhTBCbmo]+|pipefail|errexit|nounset|xtrace|verbose|noclobber|errtrace|functrace)$/;
function baseName(word: ShellWord): string {
  return word.value.slice(word.value.lastIndexOf('/') + 1);
}

/**
 * The script words make (as `eval` joins them). Words only known when it runs keep their source
 * text: read again, they expand the same way, so the guards and deny rules still see what they
 * can of it. `exact` is false then, and the command is opaque.
 */
function script(words: readonly ShellWord[]): { text: string; exact: boolean } {
  return { text: words.map(sourceValue).join(' '), exact: words.every((w) => w.isStatic) };
}

/** Hands a script to be read; one only known when it runs is read too, but marked opaque. */
function runScript(
  words: readonly ShellWord[],
  view: CommandView,
  why: string,
  form: number,
  at: number,
): void {
  const s = script(words);
  view.scripts.push(s.text);
  if (!s.exact) view.opaque.push({ reason: why, words: at, form });
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
    writes: [],
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
    const special = part.assignments.find((a) => SHELL_SPECIAL.test(a.name));
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
  if (name === 'eval')
    return runScript(words.slice(1), view, 'eval runs text computed when it runs', form, words.length);
  if (name === 'cd') return changeDirectory(words, view);
  if (name === 'set' && !words.slice(1).every((w) => w.isStatic && SET_HARMLESS.test(w.value)))
    view.opaque.push({
      reason: 'it sets shell options that change how later commands run',
      words: words.length,
      form,
    });
  if (Object.hasOwn(STATEFUL, name))
    view.opaque.push({ reason: STATEFUL[name] as string, words: words.length, form });
  const assigns = variableNameProblem(name, words);
  if (assigns) view.opaque.push({ reason: assigns, words: words.length, form });
  if (SHELLS.has(name)) return shellScript(words, view, form);
  if (name === 'find') return findExec(words, view);
  if (name === 'watch') {
    const rest = skipOptions(words.slice(1), { withValue: 'nqd', longWithValue: ['interval'] });
    if (rest !== undefined && rest.length > 0)
      runScript(rest, view, 'watch runs text computed when it runs', form, words.length);
    return;
  }
  const spec = wrapperSpec(name);
  if (!spec) {
    const opaque = opaqueCode(words);
    if (opaque) view.opaque.push({ ...opaque, form });
    view.writes.push(...impliedWrites(words));
    return;
  }
  unwrap(words, name, view, depth, peel);
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
    if (operand)
      runScript([operand], view, `${words[0]?.value} -c runs text computed when it runs`, form, words.length);
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
