// A rebase in progress runs code on the host later: the person's `git status` says a rebase is
// under way and tells them to run `git rebase --continue`, which runs the todo list's `exec` lines
// outside any sandbox. `.git/rebase-merge` cannot be held read-only like the protected paths (even
// an empty placeholder there reads as "a rebase in progress"), and a command must be able to rebase.
// So a todo list that a command wrote or changed and that holds an `exec` line has its directory
// moved aside to `.cadre/quarantine/` when the command ends; a rebase without one stays, so an
// agent's rebase that stopped on a conflict can still be continued by its next command.
import { mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Protection } from './protect.js';

/** The todo lists git continues from, by the state directory that holds them (under `.git/`). */
const TODOS: ReadonlyArray<{ dir: string; todo: string }> = [
  { dir: 'rebase-merge', todo: 'git-rebase-todo' },
  { dir: 'sequencer', todo: 'todo' },
];

/** A todo line git runs as a command: `exec` or `x`, after optional blanks (git's own reading). */
const EXEC_LINE = /^[ \t]*(?:exec|x)(?:[ \t]|$)/im;

/** Each todo list's text (undefined when absent), keyed by its state directory. */
export async function readTodos(projectDir: string): Promise<Map<string, string | undefined>> {
  const read = (rel: string) => readFile(path.join(projectDir, '.git', rel), 'utf8').catch(() => undefined);
  const texts = await Promise.all(TODOS.map((t) => read(path.join(t.dir, t.todo))));
  return new Map(TODOS.map((t, i) => [t.dir, texts[i]]));
}

async function moveAside(projectDir: string, dir: string): Promise<string> {
  const rel = path.join('.git', dir);
  const dest = path.join(
    projectDir,
    '.cadre',
    'quarantine',
    `${Date.now()}-${process.pid}`,
    `${rel}-quarantined`,
  );
  const what = `${rel} holds a todo list with exec lines that a command wrote (git rebase --continue on the host would run them outside the sandbox)`;
  try {
    await mkdir(path.dirname(dest), { recursive: true });
    await rename(path.join(projectDir, rel), dest);
    return `${what}; it was moved to ${path.relative(projectDir, dest)}, and HEAD is where the command left it`;
  } catch (error) {
    return `${what}, and could not be moved aside (${(error as Error).message}); remove it before running git here`;
  }
}

/**
 * `protection`, whose release also moves aside each rebase or sequencer state whose todo list the
 * command changed from `before` (from `readTodos`) and which now holds an `exec` line.
 */
export function withRebaseCheck(
  protection: Protection,
  projectDir: string,
  before: ReadonlyMap<string, string | undefined>,
): Protection {
  return {
    mounts: protection.mounts,
    placeholders: protection.placeholders,
    async release() {
      const notes = await protection.release();
      for (const [dir, text] of await readTodos(projectDir)) {
        if (text === undefined || text === before.get(dir) || !EXEC_LINE.test(text)) continue;
        notes.push(await moveAside(projectDir, dir));
      }
      return notes;
    },
  };
}
