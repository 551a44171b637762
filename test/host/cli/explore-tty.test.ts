// `cadre explore` on a real terminal draws the live agent tree; in a pipe it prints plain lines, and
// what a model writes never reaches either raw.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { CLI, runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { TmuxSession } from '../../support/tmux.js';

let server: FakeAnthropic;
let tmux: TmuxSession | undefined;
let project: Awaited<ReturnType<typeof tempProject>>;

beforeAll(async () => {
  project = await tempProject({ 'src/retry.ts': 'export function retry() {}\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      const first = JSON.stringify(req.body.messages[0]?.content ?? '');
      if (toolResults(req.body).length === 0) {
        // A hostile model: its tool input carries a terminal title change and a bidi override.
        const pattern = first.includes('hostile') ? 'retry\u001b]0;owned\u0007\u202e' : 'retry';
        return toolUseReply([{ name: 'Grep', input: { pattern } }]);
      }
      return textReply('retry lives in src/retry.ts', { latencyMs: first.includes('slowly') ? 2500 : 0 });
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

const env = () => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url });

describe('cadre explore progress', () => {
  it('draws the live agent tree on a terminal, then prints the report', async () => {
    tmux = await TmuxSession.start(
      [process.execPath, CLI, 'explore', 'where is retry, slowly', '--cwd', project.dir],
      { cwd: project.dir, env: { HOME: project.home, ...env() } },
    );
    const tree = await tmux.waitFor(/explore-[0-9a-f]{8} \u00b7 where is retry, slowly/);
    expect(tree).toMatch(/(Grep retry|thinking) \u00b7 [\d.]+k? tok \u00b7 \d+s/);
    const end = await tmux.waitFor(/\[exit \d+\]/, 20_000);
    expect(end).toMatch(/\[exit 0\]/);
    expect(end).toMatch(/## where is retry, slowly\n\nretry lives in src\/retry\.ts/);
    // The tree is gone; how the run ended stays.
    expect(end).toMatch(/\u25a0 explore-[0-9a-f]{8} "where is retry, slowly" completed/);
    expect(end).not.toMatch(/\u25cf explore-/);
  });

  it('in a pipe prints plain lines with no escape sequence, even from a hostile model', async () => {
    const r = await runCli(['explore', 'hostile question', '--cwd', project.dir], env(), project.dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\u00b7 Grep retry\u241b\]0;owned\u2407<U\+202E>/);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toContain('\u202e');
    expect(r.stdout).not.toContain('\u001b');
  });
});
