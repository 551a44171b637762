// The `cadre` command lines in the shell blocks of README.md and docs/ name real commands and
// options: each is checked against the CLI's own `--help` (so a renamed flag or command fails
// here), and those that run offline and fast run, with the compiled CLI, in a temp project.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as runInProcess } from '../../src/host/cli/program.js';
import { runCli } from '../support/cli.js';
import {
  checkCommand,
  docCommands,
  parseHelp,
  type DocCommand,
  type HelpPage,
} from '../support/doc-commands.js';
import { tempProject } from '../support/project.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** README.md and every page under docs/. */
async function pages(): Promise<string[]> {
  const docs = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

const helpPages = new Map<string, Promise<HelpPage>>();

/** `cadre <path...> --help`, from the real program, parsed (once per path). */
function help(commandPath: readonly string[]): Promise<HelpPage> {
  const key = commandPath.join(' ');
  let page = helpPages.get(key);
  if (page === undefined) {
    page = (async () => {
      let out = '';
      const code = await runInProcess([...commandPath, '--help'], {
        io: { stdout: (t) => void (out += t), stderr: (t) => void (out += t) },
        env: {},
        processCwd: ROOT,
        exitCode: 0,
      });
      if (code !== 0) throw new Error(`cadre ${key} --help exited ${code}: ${out}`);
      return parseHelp(out);
    })();
    helpPages.set(key, page);
  }
  return page;
}

/**
 * Commands run as documented: offline, quick, and changing nothing but the temp project. What each
 * must print, besides not being a usage error.
 */
const RUNNABLE: Record<string, RegExp | undefined> = {
  'agents list': /^NAME\s+SOURCE\s+PATH\s+MODEL\s+TOOLS\s+DESCRIPTION/m,
  'agents show': undefined,
  'agents validate': /agents loaded/,
  doctor: /^sandbox mode:/m,
  explore: /Offline model/,
  'audit verify': undefined,
  'mcp list': undefined,
};

const commands: DocCommand[] = [];
beforeAll(async () => {
  for (const page of await pages())
    commands.push(...docCommands(page, await readFile(path.join(ROOT, page), 'utf8')));
});

describe('the commands in the docs', () => {
  it('finds the documented command lines', () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.some((c) => c.page.startsWith('docs/'))).toBe(true);
  });

  it('every cadre command line names a real command and only its real options', async () => {
    const problems: string[] = [];
    for (const command of commands) {
      const check = await checkCommand(command, help);
      problems.push(...check.problems.map((p) => `${command.page}: ${command.line}\n  ${p}`));
    }
    expect(problems).toEqual([]);
  });

  it('the check catches a renamed flag and a renamed command', async () => {
    const [ok, flag, cmd, nested] = docCommands(
      'x.md',
      [
        '```sh',
        'cadre run <agent> <prompt...> [--json] [--max-turns N]',
        'cadre run explore "q" --maxturns 3',
        'cadre explorer "q"',
        '```',
        '```console',
        '$ cadre agents lst',
        'NAME  SOURCE',
        '```',
      ].join('\n'),
    );
    expect((await checkCommand(ok!, help)).problems).toEqual([]);
    expect((await checkCommand(flag!, help)).problems).toEqual(['cadre run: no option --maxturns']);
    expect((await checkCommand(cmd!, help)).problems).toEqual(['cadre explorer: no such command']);
    expect((await checkCommand(nested!, help)).problems).toEqual(['cadre agents lst: no such command']);
  });
});

describe('the documented commands that run offline', () => {
  let project: Awaited<ReturnType<typeof tempProject>>;
  beforeAll(async () => {
    project = await tempProject({
      'src/worker/tools/read.ts': 'export const readTool = { name: "Read" };\n',
      'README.md': '# demo\n',
    });
  });
  afterAll(() => project.cleanup());

  it('run without a usage error and print what the docs show', async () => {
    // Each distinct line once; none with a placeholder (`<agent>`, `[--json]`, `...`).
    const lines = new Set<string>();
    const runnable = commands.filter(
      (c) =>
        !c.words.some((w) => /[<>[\]…]|\.\.\./.test(w)) &&
        runPath(c) in RUNNABLE &&
        !lines.has(c.line) &&
        lines.add(c.line) !== undefined,
    );
    const paths = new Set(runnable.map(runPath));
    // The README's own examples: explore (its first command), agents list, doctor.
    for (const want of ['explore', 'agents list', 'doctor']) expect(paths).toContain(want);
    const failures: string[] = [];
    for (const command of runnable) {
      const r = await runCli(command.words, { HOME: project.home }, project.dir);
      const expected = RUNNABLE[runPath(command)];
      const wrong =
        r.code === 2 || /unknown (option|command)/.test(r.stderr)
          ? 'a usage error'
          : expected && !expected.test(r.stdout)
            ? `no match for ${String(expected)}`
            : undefined;
      if (wrong) failures.push(`${command.page}: ${command.line}: ${wrong}\n${r.stdout}${r.stderr}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

/** The subcommand path of a documented command (its leading words that are not flags or values). */
function runPath(command: DocCommand): string {
  const [first, second] = command.words;
  return first === 'agents' || first === 'audit' || first === 'mcp' || first === 'transcripts'
    ? `${first} ${second ?? ''}`
    : (first ?? '');
}
