// `cadre explore` on a real terminal draws the live agent tree; in a pipe it prints plain lines, and
// what a model writes never reaches either raw. A refused call is counted on the tree's row and
// printed above it, from the same host report as the progress lines.
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
  project = await tempProject({ 'src/retry.ts': 'export function retry() {}\n', '.env': 'TOKEN=secret\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      const first = JSON.stringify(req.body.messages[0]?.content ?? '');
      if (toolResults(req.body).length === 0) {
        if (first.includes('secrets')) return toolUseReply([{ name: 'Read', input: { file_path: '.env' } }]);
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

  it('counts a refused read on the tree row and prints its refusal line above the tree', async () => {
    tmux = await TmuxSession.start(
      [process.execPath, CLI, 'explore', 'any secrets here, slowly', '--cwd', project.dir],
      { cwd: project.dir, env: { HOME: project.home, ...env() } },
    );
    const live = await tmux.waitFor(/explore-[0-9a-f]{8} \u00b7 any secrets here.* \u00b7 1 refused \u00b7/);
    expect(live).toMatch(/\u2717 refused: \.env \u2014 "\.env" is a sensitive file/);
    const end = await tmux.waitFor(/\[exit \d+\]/, 20_000);
    expect(end).toMatch(/\[exit 0\]/);
    // The line is long enough to wrap on the terminal.
    expect(end).toMatch(/\u2717 refused: \.env \u2014 [\s\S]*Read\(\.env\)/);
    expect(end).toMatch(/\u25a0 explore-[0-9a-f]{8} "any secrets here, slowly" completed .*\(1 refused\)/);
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
