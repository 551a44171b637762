// `cadre run` on a real terminal (tmux) against the fake Messages API: a command made of emoji that
// the terminal draws two cells wide. The approval prompt is a block of lines redrawn in place; had
// its lines been measured one cell per emoji, they would wrap on the terminal and the block would
// no longer erase: the old prompt's title and command would stay on screen above the next prompt,
// which a person could take for what they are answering.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  textReply,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { CLI } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { TmuxSession } from '../../support/tmux.js';

const WIDE = '\u2705\u26a1\u231a\u2b50'.repeat(18);

let server: FakeAnthropic;
let tmux: TmuxSession | undefined;
let project: Awaited<ReturnType<typeof tempProject>>;

beforeAll(async () => {
  project = await tempProject({ 'README.md': '# demo\n' });
  server = await startFakeAnthropic({
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
afterEach(async () => {
  await tmux?.close();
  tmux = undefined;
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cadre run: a prompt of wide characters', () => {
  it('erases cleanly: no line of the first prompt stays on screen above the next one', async () => {
    tmux = await TmuxSession.start(
      [process.execPath, CLI, 'run', 'general-purpose', 'go', '--cwd', project.dir],
      {
        cwd: project.dir,
        env: { HOME: project.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
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
