// Collects everything a command line will run: its parts (shell-read.ts), each seen through its
// wrappers (shell-unwrap.ts), the command lines its parts run in turn (`bash -c`, `eval`, `watch`,
// `su -c`), the commands they run (`find -exec`, `xargs`), and the directories each part may run
// in (`cd`), for the path guards.
import path from 'node:path';
import { hasGlob, unescapeGlob } from './glob-overlap.js';
import { loadShellGrammar, shellGrammarProblem } from './shell-grammar.js';
import { readShell, type ShellPart } from './shell-read.js';
import { viewCommand, type CommandView } from './shell-unwrap.js';
import type { ShellWord } from './shell-words.js';

/** One part to judge, with the view rules see and the directories it may run in. */
export interface Collected {
  part: ShellPart;
  view: CommandView;
  /** Words another command adds when it runs (xargs): rules can match only its known words. */
  open: boolean;
  /** Directories the part may run in (absolute). */
  cwds: readonly string[];
}

/** A whole command line, collected. */
export interface Collection {
  parts: Collected[];
  /** Why the line (or a script it runs) is not entirely static. */
  unreadable: string[];
  /** The grammar could not be used at all: nothing was read. */
  noGrammar?: string;
  /** Globs may match dot files (the line changes shell options, or cannot be read). */
  dotglob: boolean;
}

/** Scripts inside scripts (`bash -c "bash -c '...'"`) are followed this deep. */
const MAX_NESTING = 4;
const MAX_CWDS = 8;

interface State {
  out: Collection;
  cwds: readonly string[];
  homeDir: string | undefined;
}

function resolveDir(target: ShellWord, state: State): string[] | undefined {
  const pattern = target.patterns[0];
  if (target.patterns.length !== 1 || pattern === undefined || hasGlob(pattern)) return undefined;
  const dir = unescapeGlob(pattern);
  if (dir === '~' || dir.startsWith('~/'))
    return state.homeDir === undefined ? undefined : [path.posix.join(state.homeDir, dir.slice(1))];
  if (dir.startsWith('~')) return undefined;
  return state.cwds.map((cwd) => path.posix.resolve(cwd, dir));
}

function collectPart(part: ShellPart, open: boolean, depth: number, state: State): void {
  const view = viewCommand(part);
  // The same array while no `cd` changes it: the guards keep their verdicts per array.
  state.out.parts.push({ part, view, open, cwds: state.cwds });
  if (view.chdir?.target) {
    const dirs = resolveDir(view.chdir.target, state);
    if (dirs === undefined) view.unclear.push('it changes to a directory known only when it runs');
    else state.cwds = [...new Set([...state.cwds, ...dirs])].slice(0, MAX_CWDS);
  }
  for (const script of view.scripts) {
    if (depth >= MAX_NESTING) state.out.unreadable.push('it nests scripts too deeply');
    else collectLine(script, depth + 1, state);
  }
  for (const cmd of view.commands) {
    const text = cmd.words.map((w) => w.text).join(' ');
    if (depth >= MAX_NESTING) state.out.unreadable.push('it nests commands too deeply');
    else collectPart({ assignments: [], words: cmd.words, redirects: [], text }, cmd.open, depth + 1, state);
  }
}

function collectLine(source: string, depth: number, state: State): void {
  const reading = readShell(source);
  for (const reason of reading.unreadable)
    if (!state.out.unreadable.includes(reason)) state.out.unreadable.push(reason);
  for (const part of reading.parts) collectPart(part, false, depth, state);
}

// Agents, and batches of them, run the same commands over and over (`git status`, `npm test`): the
// reading of recent lines is kept. It is a pure function of the line and the two directories, and
// nothing downstream changes it.
const recent = new Map<string, Collection>();
const RECENT_LINES = 128;
const RECENT_MAX_LENGTH = 2048;

/** Collects a command line run in `projectDir`. */
export function collectCommand(source: string, projectDir: string, homeDir: string | undefined): Collection {
  const noGrammar = shellGrammarProblem();
  if (noGrammar !== undefined) {
    // A caller that did not load the grammar first gets a prompt now, and a reading next time.
    void loadShellGrammar();
    return { parts: [], unreadable: [noGrammar], noGrammar, dotglob: false };
  }
  const key = `${projectDir}\0${homeDir ?? ''}\0${source}`;
  const hit = recent.get(key);
  if (hit) {
    // Most recently used last, so the oldest is dropped first.
    recent.delete(key);
    recent.set(key, hit);
    return hit;
  }
  const out = read(source, projectDir, homeDir);
  if (source.length <= RECENT_MAX_LENGTH) {
    if (recent.size >= RECENT_LINES) recent.delete(recent.keys().next().value as string);
    recent.set(key, out);
  }
  return out;
}

function read(source: string, projectDir: string, homeDir: string | undefined): Collection {
  const out: Collection = { parts: [], unreadable: [], dotglob: false };
  collectLine(source, 0, { out, cwds: [projectDir], homeDir });
  out.dotglob =
    out.unreadable.length > 0 ||
    out.parts.some(
      (c) =>
        c.view.opaque.length > 0 ||
        c.part.assignments.some((a) => a.name === 'GLOBIGNORE') ||
        c.part.words[0]?.value === 'shopt',
    );
  return out;
}
