// `cadre run` on a real terminal (tmux) against the fake Messages API: a Write that needs approval is
// shown as a prompt on stderr, approved with one key, performed, audited and transcribed; off a
// terminal the same run denies it as before.
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
import { CLI, runCli } from '../../support/cli.js';
import { projectRecords, tempProject } from '../../support/project.js';
import { TmuxSession } from '../../support/tmux.js';

let server: FakeAnthropic;
let tmux: TmuxSession | undefined;
const projects: Awaited<ReturnType<typeof tempProject>>[] = [];

beforeAll(async () => {
  server = await startFakeAnthropic({
    responder: (req) => {
      const results = toolResults(req.body);
      if (results.length === 0)
        return toolUseReply([
          { name: 'Write', input: { file_path: 'hello.txt', content: 'hello from the agent\n' } },
        ]);
      return textReply(`write result: ${JSON.stringify(results[0]?.content ?? '')}`);
    },
  });
});
afterEach(async () => {
  await tmux?.close();
  tmux = undefined;
});
afterAll(async () => {
  await server.close();
  for (const p of projects) await p.cleanup();
});

async function project() {
  const p = await tempProject({ 'README.md': '# demo\n' });
  projects.push(p);
  return p;
}

function lines(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('cadre run on a terminal', () => {
  it('asks for a Write on stderr, and "y" lets it through: written, audited and transcribed', async () => {
    const p = await project();
    tmux = await TmuxSession.start(
      [process.execPath, CLI, 'run', 'general-purpose', 'write', 'the', 'greeting', '--json', '--cwd', p.dir],
      {
        cwd: p.dir,
        env: { HOME: p.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
        // Wide enough that the transcript's path (under the home's records directory) is not wrapped.
        width: 240,
      },
    );
    const prompt = await tmux.waitFor(/wants to create hello\.txt \(1 of 1\)/);
    expect(prompt).toMatch(/general-purpose-[0-9a-f]{8} wants to create hello\.txt \(1 of 1\)/);
    expect(prompt).toMatch(/new file hello\.txt \(1 lines, 21 chars\)/);
    expect(prompt).toMatch(/\+ hello from the agent/);
    expect(prompt).toMatch(/why: writing hello\.txt needs approval in default mode/);
    expect(prompt).toMatch(
      /\[y\] allow once {2}\[n\/Esc\] deny {2}\[a\] always this session: Edit\(hello\.txt\)/,
    );
    // Past the key grace (the key row no longer says "wait"), one key answers.
    await tmux.waitFor(/^ {2}\[y\] allow once/m);
    await tmux.key('y');
    const end = await tmux.waitFor(/\[exit \d+\]/, 20_000, 'history');
    expect(end).toMatch(/\[exit 0\]/);
    expect(end).not.toMatch(/wants to create/);
    expect(await readFile(path.join(p.dir, 'hello.txt'), 'utf8')).toBe('hello from the agent\n');
    const out = JSON.parse(end.slice(end.indexOf('{'), end.lastIndexOf('}') + 1).replace(/\n/g, ' ')) as {
      status: string;
      transcriptPath: string;
      result: string;
    };
    expect(out.status).toBe('completed');
    expect(out.result).toMatch(/File created successfully/);
    const audit = lines(await readFile((await projectRecords(p)).auditLog, 'utf8')).filter(
      (l) => l.capability === 'fs.write',
    );
    expect(audit).toEqual([
      expect.objectContaining({ decision: 'ask', approval: 'allow', decidedBy: 'user', ok: true }),
    ]);
    const events = lines(await readFile(out.transcriptPath, 'utf8'));
    expect(events.find((e) => e.type === 'approval-result')).toMatchObject({
      decision: 'allow',
      decidedBy: 'user',
    });
  });

  it('off a terminal the same Write is denied at once, and says how to allow it', async () => {
    const p = await project();
    const r = await runCli(
      ['run', 'general-purpose', 'write the greeting', '--json', '--cwd', p.dir],
      { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
      p.dir,
    );
    expect(r.stderr).not.toContain('\x1b');
    const out = JSON.parse(r.stdout) as { result: string };
    expect(out.result).toMatch(
      /approval_denied: fs\.write was not run: it needs approval and this run is non-interactive/,
    );
    await expect(readFile(path.join(p.dir, 'hello.txt'), 'utf8')).rejects.toThrow();
  });
});
