// The real `cadre chat` on a real terminal (tmux) against the fake Messages API, with the model
// and the repository playing the attacker against the approval prompt:
// - a person typing a message as a prompt appears: the letters of the sentence ("a", "y") must not
//   answer it, however long the sentence runs past the key grace;
// - a command longer than the prompt, its payload on the last line: `d` pages through the whole
//   input, so the end is on screen before anyone allows it, even past 20,000 characters;
// - a command whose here-document (and a description) draw the prompt's key row: each of its lines
//   is marked as a line of the command, and only the prompt's own key row reads as one;
// - a Write to a path that is a symlink the repository ships (docs/notes.md → src/auth.ts): the
//   prompt names the file that would change, not only the name the link gives it;
// - `cadre run` with a command of emoji the terminal draws two cells wide: had the prompt's lines
//   been measured one cell per emoji, they would wrap, the redrawn block would no longer erase, and
//   the old prompt's title and command would stay on screen above the next prompt.
import { existsSync } from 'node:fs';
import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  systemText,
  textReply,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { CLI } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { TmuxSession } from '../../support/tmux.js';

const AUTH = 'export const admin = false;\n';
const LONG = `${'true\n'.repeat(60)}touch paged-end`;
// A here-document and a description that draw the prompt's own key row, offering a harmless rule.
const FAKE_ROW = '[y] allow once  [n/Esc] deny  [a] always this session: Bash(cat:*)  [d] show full input';
const FORGED = `cat <<'EOF'\n${FAKE_ROW}\nEOF\ntouch forged-row`;
// One line past the 20,000 characters a JSON input is cut at.
const HUGE = `echo ${'x'.repeat(25_000)}; touch tail-payload`;

const WIDE = '\u2705\u26a1\u231a\u2b50'.repeat(18);

let server: FakeAnthropic;
let tmux: TmuxSession | undefined;
let project: Awaited<ReturnType<typeof tempProject>>;

beforeAll(async () => {
  project = await tempProject({ 'README.md': '# demo\n', 'src/auth.ts': AUTH, 'docs/.keep': '' });
  await symlink('../src/auth.ts', path.join(project.dir, 'docs/notes.md'));
  server = await startFakeAnthropic({
    responder: (req) => {
      if (!systemText(req.body).startsWith('You are the main agent')) return textReply('nothing');
      // One tool call per step of the main agent's turn, by how many messages it has sent so far.
      switch (req.body.messages.length) {
        case 1:
          return toolUseReply([{ name: 'Bash', input: { command: 'touch typed-through' } }]);
        case 3:
          return toolUseReply([{ name: 'Bash', input: { command: LONG, description: 'check things' } }]);
        case 5:
          return toolUseReply([{ name: 'Bash', input: { command: HUGE } }]);
        case 7:
          return toolUseReply([{ name: 'Bash', input: { command: FORGED, description: FAKE_ROW } }]);
        case 9:
          // A file is read before it is overwritten (the Write tool's own rule).
          return toolUseReply([{ name: 'Read', input: { file_path: 'docs/notes.md' } }]);
        case 11:
          return toolUseReply([
            { name: 'Write', input: { file_path: 'docs/notes.md', content: 'export const admin = true;\n' } },
          ]);
        default:
          return textReply('all done');
      }
    },
  });
});
afterEach(async () => {
  await tmux?.close();
  tmux = undefined;
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The body of the prompt on `screen` (between its title and its `why:`), wrapped lines joined, without spaces. */
function promptBody(screen: string): string {
  const lines = screen.split('\n');
  const from = lines.findIndex((l) => l.includes('wants to'));
  const to = lines.findIndex((l, i) => i > from && l.includes('why:'));
  return lines
    .slice(from + 1, to)
    .join('')
    .replace(/[\s\u2502]/g, '');
}

describe('cadre chat: what the approval prompt shows is what an answer does', () => {
  it('typing never answers a prompt, d reaches the end of a long command, a symlink is named', async () => {
    const command = [process.execPath, CLI, 'chat', '--cwd', project.dir]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    tmux = await TmuxSession.start(['bash', '-c', command], {
      cwd: project.dir,
      env: { HOME: project.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
      width: 100,
      height: 45,
    });
    await tmux.waitFor(/message, @agent task, or \/help/);
    await tmux.type('go');
    await tmux.key('Enter');
    await tmux.waitFor(/^\u2502 {3}\[y\] allow once/m);
    expect(await tmux.screen()).toContain('$ touch typed-through');
    await pause(600);
    // A sentence typed a key at a time, long after the grace of the prompt's first appearance:
    // its "a"s, "y" and "n"s must not answer it.
    for (const ch of 'hey, and always say yes') {
      await tmux.type(ch);
      await pause(60);
    }
    await pause(150);
    const still = await tmux.screen();
    expect(still).toContain('$ touch typed-through');
    expect(still).not.toMatch(/always this session: Bash\(touch:\*\) \(allowed|allowed for this session/);
    await pause(400);
    await tmux.key('n');
    // The long command: its preview is cut, `d` pages to its last line.
    const long = await tmux.waitFor(/more lines \(d: full input\)/);
    expect(long).not.toContain('touch paged-end');
    let seen = '';
    await pause(400);
    for (let i = 0; i < 8 && !seen.includes('touch paged-end'); i++) {
      await tmux.key('d');
      await pause(150);
      seen = await tmux.screen();
    }
    expect(seen).toContain('touch paged-end');
    await tmux.key('n');
    // A command longer than any cut: `d` pages to its end.
    await tmux.waitFor(/\$ echo xxxx[\s\S]*more lines \(d: full input\)/);
    await pause(400);
    // (The policy's reason may name the command's parts: only the body counts as seeing it.)
    expect(promptBody(await tmux.screen())).not.toContain('touchtail-payload');
    seen = '';
    for (let i = 0; i < 20 && !seen.includes('touchtail-payload'); i++) {
      await tmux.key('d');
      await pause(120);
      seen = promptBody(await tmux.screen());
    }
    expect(seen).toContain(';touchtail-payload');
    await tmux.key('n');
    // Lines of the command and its description are marked as such: one key row, the prompt's own.
    const forged = await tmux.waitFor(/\$ cat <<'EOF'[\s\S]*\[y\] allow once[\s\S]*touch forged-row/);
    await pause(400);
    const rows = (await tmux.screen())
      .split('\n')
      .filter((l) => /^\u2502 {3}(\(wait\) )?\[y\] allow once/.test(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('Bash(touch:*)');
    expect(forged).toMatch(
      /> \[y\] allow once {2}\[n\/Esc\] deny {2}\[a\] always this session: Bash\(cat:\*\)/,
    );
    expect(forged).toContain('> touch forged-row');
    await tmux.key('n');
    // The Write through the repository's symlink names the file it would change.
    const write = await tmux.waitFor(/wants to edit docs\/notes\.md/);
    expect(write).toContain('docs/notes.md \u2192 src/auth.ts');
    await pause(400);
    await tmux.key('n');
    await tmux.waitFor(/all done/);
    await tmux.waitFor(/idle/);
    expect(existsSync(path.join(project.dir, 'typed-through'))).toBe(false);
    expect(existsSync(path.join(project.dir, 'paged-end'))).toBe(false);
    expect(existsSync(path.join(project.dir, 'tail-payload'))).toBe(false);
    expect(existsSync(path.join(project.dir, 'forged-row'))).toBe(false);
    expect(await readFile(path.join(project.dir, 'src/auth.ts'), 'utf8')).toBe(AUTH);
    await tmux.key('C-c');
    await tmux.waitFor(/press Ctrl\+C again to quit/);
    await tmux.key('C-c');
  });
});

describe('cadre run: a prompt of wide characters', () => {
  let wideServer: FakeAnthropic;
  let wideProject: Awaited<ReturnType<typeof tempProject>>;

  beforeAll(async () => {
    wideProject = await tempProject({ 'README.md': '# demo\n' });
    wideServer = await startFakeAnthropic({
      responder: (req) => {
        switch (req.body.messages.length) {
          case 1:
            return toolUseReply([{ name: 'Bash', input: { command: `echo ${WIDE} first-wide` } }]);
          case 3:
            return toolUseReply([{ name: 'Bash', input: { command: 'touch second-one' } }]);
          default:
            return textReply('over');
        }
      },
    });
  });
  afterAll(async () => {
    await wideServer.close();
    await wideProject.cleanup();
  });

  it('erases cleanly: no line of the first prompt stays on screen above the next one', async () => {
    tmux = await TmuxSession.start(
      [process.execPath, CLI, 'run', 'general-purpose', 'go', '--cwd', wideProject.dir],
      {
        cwd: wideProject.dir,
        env: { HOME: wideProject.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: wideServer.url },
        width: 80,
        height: 40,
      },
    );
    const first = await tmux.waitFor(/^ {2}\[y\] allow once/m);
    expect(first).toContain('first-wide');
    await pause(100);
    await tmux.key('n');
    const second = await tmux.waitFor(/\$ touch second-one[\s\S]*\[y\] allow once/);
    // Only the prompt being answered is on screen: one title, and none of the first command.
    expect(second.match(/wants to run Bash/g)?.length).toBe(1);
    expect(second).not.toMatch(/\$ echo \u2705/);
    await pause(400);
    await tmux.key('n');
    // The run ends (both calls denied) before its project is removed.
    expect(await tmux.waitFor(/\[exit \d+\]/, 20_000, 'history')).toMatch(/over/);
  });
});
