// The real `cadre chat` binary on a real terminal (a private tmux server, one key per send-keys,
// the screen polled) against the fake Messages API: the main agent fans out to two subagents that
// both ask to run Bash; the prompts come one at a time naming each agent; y, then n; both decisions
// are in the transcripts and the audit log; the session exits cleanly with its transcript path.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  systemText,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { CLI, runCli } from '../../support/cli.js';
import { projectRecords, tempProject } from '../../support/project.js';
import { TmuxSession } from '../../support/tmux.js';

let server: FakeAnthropic;
let tmux: TmuxSession | undefined;
let project: Awaited<ReturnType<typeof tempProject>>;

beforeAll(async () => {
  project = await tempProject({ 'README.md': '# demo\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      const results = toolResults(req.body);
      const first = req.body.messages[0]?.content;
      if (systemText(req.body).startsWith('You are the main agent')) {
        if (results.length === 0)
          return toolUseReply(
            ['one', 'two'].map((name) => ({
              name: 'Task',
              input: { description: `make ${name}`, prompt: `touch ${name}.txt`, subagent_type: 'bash' },
            })),
            { text: 'Starting two agents.' },
          );
        return textReply(`Both agents reported back (${results.length} reports).`);
      }
      const command = typeof first === 'string' ? first : 'true';
      return results.length === 0
        ? toolUseReply([{ name: 'Bash', input: { command } }])
        : textReply(`bash agent saw: ${JSON.stringify(results[0]?.content ?? '').slice(0, 120)}`);
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

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Waits until the prompt's key row is live (past the grace after the head changed). */
async function live(session: TmuxSession): Promise<string> {
  return session.waitFor(/^\u2502 {3}\[y\] allow once/m);
}

describe('cadre chat on a terminal', () => {
  it('asks for each subagent one at a time, records y and n, and exits cleanly', async () => {
    tmux = await TmuxSession.start([process.execPath, CLI, 'chat', '--cwd', project.dir], {
      cwd: project.dir,
      env: { HOME: project.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
      // Wide enough that the transcript's path (under the home's records directory) is not wrapped.
      width: 240,
    });
    await tmux.waitFor(/message, @agent task, or \/help/);
    await tmux.type('fan out');
    await tmux.key('Enter');
    const first = await tmux.waitFor(/main \u203a (bash-[0-9a-f]{8}) wants to run Bash \(1 of 2\)/);
    const a = /main \u203a (bash-[0-9a-f]{8}) wants to run Bash/.exec(first)?.[1] ?? '';
    expect(first).toMatch(/2 agents waiting for you/);
    await live(tmux);
    await tmux.key('y');
    const second = await tmux.waitFor(/main \u203a (bash-[0-9a-f]{8}) wants to run Bash \(1 of 1\)/);
    const b = /main \u203a (bash-[0-9a-f]{8}) wants to run Bash/.exec(second)?.[1] ?? '';
    expect(b).not.toBe(a);
    await live(tmux);
    await tmux.key('n');
    const done = await tmux.waitFor(/Both agents reported back \(2 reports\)/);
    expect(done).toMatch(new RegExp(`allowed by you: ${a} run: touch`));
    expect(done).toMatch(new RegExp(`denied by you: ${b} run: touch`));
    // The lead's last turn ends after its reply is drawn: the status line then goes back to idle.
    await tmux.waitFor(/idle/);
    await tmux.key('C-c');
    await tmux.waitFor(/press Ctrl\+C again to quit/);
    await tmux.key('C-c');
    const end = await tmux.waitFor(/\[exit \d+\]/, 20_000, 'history');
    expect(end).toMatch(/\[exit 0\]/);
    const transcript = /session transcript: (\S+\.jsonl)/.exec(end)?.[1] ?? '';
    expect(end).toMatch(/continue it with: cadre chat --resume/);

    // Exactly one of the two files exists: the allowed command ran, the denied one did not.
    const made = await Promise.all(
      ['one.txt', 'two.txt'].map((f) =>
        stat(path.join(project.dir, f)).then(
          () => f,
          () => undefined,
        ),
      ),
    );
    expect(made.filter(Boolean)).toHaveLength(1);

    const audit = jsonLines(await readFile((await projectRecords(project)).auditLog, 'utf8')).filter(
      (l) => l.capability === 'exec.run',
    );
    expect(audit.map((l) => [l.agentId, l.decision, l.approval, l.decidedBy]).sort()).toEqual(
      [
        [a, 'ask', 'allow', 'user'],
        [b, 'ask', 'deny', 'user'],
      ].sort(),
    );
    const dir = path.dirname(transcript);
    const decisions: Record<string, unknown>[] = [];
    for (const file of await readdir(dir))
      for (const e of jsonLines(await readFile(path.join(dir, file), 'utf8')))
        if (e.type === 'approval-result') decisions.push(e);
    expect(decisions.map((e) => [e.agentId, e.decision, e.decidedBy]).sort()).toEqual(
      [
        [a, 'allow', 'user'],
        [b, 'deny', 'user'],
      ].sort(),
    );
    const main = jsonLines(await readFile(transcript, 'utf8'));
    expect(main.at(-1)).toMatchObject({ type: 'status', status: 'completed' });
  });

  it('refuses to start without a terminal', async () => {
    const r = await runCli(
      ['chat', '--cwd', project.dir],
      { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
      project.dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/chat needs a terminal/);
  });
});
