// The fast reader (shell-static.ts) reads a line exactly as the grammar does, or leaves it to the
// grammar: its reading of every generated line it accepts equals the grammar's, text included.
// What bash runs for such lines is checked in shell-differential.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { decide, loadShellGrammar } from '../../../src/host/capabilities/policy.js';
import { readShell, readShellTree } from '../../../src/host/capabilities/policy/shell-read.js';
import { readStatic } from '../../../src/host/capabilities/policy/shell-static.js';
import { FastLineGenerator, prng } from './shell-gen.js';

beforeAll(() => loadShellGrammar());

const LINES = 40_000;

describe('the fast reader', () => {
  it(`reads ${LINES} generated lines as the grammar does, or leaves them to it`, () => {
    const gen = new FastLineGenerator(prng(12));
    let read = 0;
    const differ: string[] = [];
    for (let i = 0; i < LINES; i++) {
      const line = gen.line();
      const fast = readStatic(line);
      if (fast === undefined) continue;
      read++;
      if (JSON.stringify(fast) !== JSON.stringify(readShellTree(line))) differ.push(line);
    }
    expect(differ).toEqual([]);
    // Enough lines are in its language for the comparison to mean something.
    expect(read).toBeGreaterThan(LINES / 20);
  });

  it.each([
    [
      'git diff --stat "src/a.ts" 2>/dev/null | grep -v \'vendor\' && npm test > /dev/null; ls -la || cat x # 1',
    ],
    ['ls'],
    ['a \'b c\' "d e" f\'g\'"h"'],
    ['a 2>&1 >/dev/null || b'],
    ['a; b;'],
  ])('reads %j', (line) => {
    const fast = readStatic(line);
    expect(fast).toBeDefined();
    expect(fast).toEqual(readShellTree(line));
    expect(fast?.unreadable).toEqual([]);
  });

  it.each([
    // Where the grammar reads a word as a descriptor or an operator, bash and it may disagree.
    ['a 0>x'],
    ['a -1>x'],
    ['a 22>x'],
    ['a - 2>x'],
    ['a == b'],
    ['a>x'],
    // Syntax, declarations, expansions, globs, escapes, newlines, input and other redirections.
    ['if a; then b; fi'],
    ['export A=b'],
    ['A=b c'],
    ['echo $x'],
    ['echo "$x"'],
    ['echo `id`'],
    ['ls *.ts'],
    ['cat .e{n,x}v'],
    ['cat ~/.ssh/id_rsa'],
    ['\\rm x'],
    ['a\nb'],
    ['cat < .env'],
    ['a &> x'],
    ['a >| x'],
    ['a & b'],
    ['a |& b'],
    ['a # \n b'],
    ['a #\u00e9'],
    // The grammar reads these otherwise than bash (which runs them as written): it takes
    // `unsetenv` for `unset`, a syntax word glued to a quote for the word, fails on `@` or `%`
    // inside a command name, and stops following a chain of about 50 to 200 `&&`.
    ['unsetenv x'],
    ["declare'x'a b"],
    ['x@ && rm y'],
    ['a%b'],
    [Array(60).fill('ls 2>&1 | ls >x').join(' && ')],
    [Array(250).fill('ls').join(' || ')],
    ['ls\u00a0-la'],
    ['a && '],
    [''],
  ])('leaves %j to the grammar', (line) => {
    expect(readStatic(line)).toBeUndefined();
  });

  it('decides as before on a 4 KB line, and reads it without the grammar', () => {
    let line = '';
    for (let i = 0; line.length < 4096; i++)
      line += `git diff --stat "src/m-${i}.ts" 2>/dev/null | grep -v 'v/${i}' && ls -la src/d${i} || cat README.md; `;
    expect(readStatic(line)?.parts.length).toBeGreaterThan(100);
    expect(readShell(line)).toEqual(readShellTree(line));
    const input = {
      capability: 'exec.run',
      command: `${line} rm -rf x`,
      projectDir: '/work/proj',
      homeDir: '/home/u',
      mode: 'bypassPermissions',
      rules: {
        allow: ['Bash(git diff:*)', 'Bash(grep:*)', 'Bash(ls:*)', 'Bash(cat:*)'],
        deny: ['Bash(rm:*)'],
      },
    } as const;
    expect(decide(input).decision).toBe('deny');
  });
});
