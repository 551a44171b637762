// The failure paths of `cadre run` and `cadre explore` as a user meets them, through the compiled
// CLI and the real SDK against the fake Messages API: refused effects shown, counted and reflected
// in the exit code; SIGTERM and SIGHUP handled like Ctrl-C with nothing left running in either
// sandbox mode; `-` as the prompt; bad flags, models, agents and configs named precisely.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  textReply,
  toolUseReply,
  type FakeAnthropic,
  type RequestBody,
} from '../../support/fake-anthropic.js';
import { runCli, startCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';

let server: FakeAnthropic;
let project: Awaited<ReturnType<typeof tempProject>>;
let env: Record<string, string>;

const agents = JSON.stringify({
  doer: { description: 'changes things', prompt: 'You change files.', tools: ['Write', 'Bash', 'Read'] },
});

const promptOf = (body: RequestBody) => {
  const first = body.messages[0]?.content;
  return typeof first === 'string' ? first : JSON.stringify(first);
};

beforeAll(async () => {
  project = await tempProject({ 'a.txt': 'a\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      const prompt = promptOf(req.body);
      const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
      if (prompt.includes('take your time')) return textReply('late', { latencyMs: 30_000 });
      const sleep = /run sleep ([\d.]+)( ignoring TERM)?/.exec(prompt);
      if (sleep !== null && turn === 0) {
        // A command that ignores TERM runs a script the test wrote (an allow rule names it: a trap's
        // action is code, which the shell policy never allows by a rule on `trap`).
        const command = sleep[2] ? `sh ignore-term.sh ${sleep[1]}` : `sleep ${sleep[1]} && echo woke`;
        return toolUseReply([{ name: 'Bash', input: { command } }]);
      }
      if (prompt.includes('change things') && turn === 0)
        return toolUseReply([
          { name: 'Write', input: { file_path: 'out.txt', content: 'new\n' } },
          { name: 'Bash', input: { command: 'echo changed > changed.txt' } },
        ]);
      return textReply(`done: ${prompt.slice(0, 60)}`);
    },
  });
  env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

const pgrep = (pattern: string): number[] => {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};
const until = async (check: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50)))
    if (check()) return true;
  return check();
};

describe('refused effects', () => {
  it('every write and command refused: shown as refused, counted, a note, and exit 1', async () => {
    const r = await runCli(
      ['run', 'doer', 'change things', '--json', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { status: string; refused: number };
    expect(out.status).toBe('completed');
    expect(out.refused).toBe(2);
    expect(r.stderr).toMatch(/✗ refused: out\.txt \(4 chars\) — fs\.write was not run: it needs approval/);
    expect(r.stderr).toMatch(/✗ refused: echo changed > changed\.txt — exec\.run was not run/);
    // Each refusal is one line, and names the rule that would allow it.
    expect(r.stderr.match(/✗ refused:/g)).toHaveLength(2);
    expect(r.stderr).toMatch(/✗ refused: out\.txt \(4 chars\) — .* Allow it with "Edit\(out\.txt\)"\.\n/);
    expect(r.stderr).toMatch(/completed in [\d.]+ s, 2 turns, 2 tool calls \(2 refused\)/);
    expect(r.stderr).toMatch(
      /note: every write and command this run tried was refused \(2 refused\): none of them took effect/,
    );
  });

  it('some refused: the note says how many, and the exit code says not every effect happened', async () => {
    const r = await runCli(
      [
        'run',
        'doer',
        'change things',
        '--permission-mode',
        'acceptEdits',
        '--agents',
        agents,
        '--cwd',
        project.dir,
      ],
      env,
      project.dir,
    );
    expect(r.code).toBe(1);
    expect(await readFile(path.join(project.dir, 'out.txt'), 'utf8')).toBe('new\n');
    expect(r.stderr).toMatch(
      /note: 1 write or command of 2 this run tried was refused and did not take effect/,
    );
  });

  it('nothing refused: no note, exit 0', async () => {
    const r = await runCli(
      [
        'run',
        'doer',
        'change things',
        '--permission-mode',
        'bypassPermissions',
        '--agents',
        agents,
        '--cwd',
        project.dir,
      ],
      env,
      project.dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/note:|refused/);
  });
});

describe('stop signals', () => {
  for (const [signal, code, sandbox, duration, ignoring] of [
    ['SIGTERM', 143, 'off', '3001.25', ''],
    ['SIGTERM', 143, 'auto', '3002.25', ''],
    ['SIGTERM', 143, 'off', '3003.25', ' ignoring TERM'],
    ['SIGHUP', 129, 'auto', '3004.25', ''],
  ] as const) {
    it(`${signal} during a command${ignoring} (sandbox ${sandbox}): cancelled, transcript closed, no process left, exit ${code}`, async () => {
      const dir = path.join(project.dir, `sig-${duration}`);
      await mkdir(path.join(dir, '.cadre'), { recursive: true });
      // bypassPermissions runs no command with the sandbox off: the command is allowed by rules.
      const permissions = { allow: ['Bash(sleep:*)', 'Bash(echo:*)', 'Bash(sh ignore-term.sh:*)'] };
      await writeFile(path.join(dir, 'ignore-term.sh'), `trap '' TERM\nsleep "$1" && echo woke\n`);
      await writeFile(path.join(dir, '.cadre', 'config.json'), JSON.stringify({ sandbox, permissions }));
      const run = startCli(
        [
          'run',
          'doer',
          `run sleep ${duration}${ignoring}`,
          '--json',
          '--permission-mode',
          sandbox === 'off' ? 'default' : 'bypassPermissions',
          '--agents',
          agents,
          '--cwd',
          dir,
        ],
        env,
        dir,
      );
      // Anchored: the cadre command line holds the prompt too.
      expect(await until(() => pgrep(`^sleep ${duration}`).length > 0, 15_000)).toBe(true);
      run.child.kill(signal);
      const r = await run.done;
      expect(r.code, r.stderr).toBe(code);
      const out = JSON.parse(r.stdout) as { status: string; transcriptPath: string };
      expect(out.status).toBe('cancelled');
      const last = (await readFile(out.transcriptPath, 'utf8')).trimEnd().split('\n').at(-1) ?? '';
      expect(JSON.parse(last)).toMatchObject({ type: 'status', status: 'cancelled' });
      expect(await until(() => pgrep(`^sleep ${duration}`).length === 0, 10_000)).toBe(true);
    });
  }

  for (const [signal, code] of [
    ['SIGHUP', 129],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} to explore cancels every agent, closes their transcripts, and exits ${code}`, async () => {
      const run = startCli(
        ['explore', 'take your time', 'take your time too', '--json', '--cwd', project.dir],
        env,
        project.dir,
      );
      const before = server.inFlight;
      await until(() => server.inFlight >= before + 2, 10_000);
      run.child.kill(signal);
      const r = await run.done;
      expect(r.code).toBe(code);
      const outs = JSON.parse(r.stdout) as { status: string; transcriptPath: string }[];
      expect(outs.map((o) => o.status)).toEqual(['cancelled', 'cancelled']);
      for (const o of outs) {
        const last = (await readFile(o.transcriptPath, 'utf8')).trimEnd().split('\n').at(-1) ?? '';
        expect(JSON.parse(last)).toMatchObject({ type: 'status', status: 'cancelled' });
      }
    });
  }
});

describe('input', () => {
  it('- reads the prompt from standard input, for run and for explore', async () => {
    const run = startCli(['run', 'doer', '-', '--agents', agents, '--cwd', project.dir], env, project.dir);
    run.child.stdin?.end('a prompt piped in\n');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/done: a prompt piped in/);
    const explore = startCli(['explore', '-', '--json', '--cwd', project.dir], env, project.dir);
    explore.child.stdin?.end('a question from stdin');
    const e = await explore.done;
    expect((JSON.parse(e.stdout) as { question: string }[])[0]?.question).toBe('a question from stdin');
  });

  it('a mistyped model, agent, or a number out of range is named with what would be right', async () => {
    const model = await runCli(
      ['run', 'doer', 'x', '--model', 'sonet', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/--model: unknown model alias "sonet" \(did you mean "sonnet"\?\)/);
    const provider = await runCli(
      ['run', 'doer', 'x', '--model', 'nowhere:m1', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(provider.code).toBe(2);
    expect(provider.stderr).toMatch(/--model: model "nowhere:m1": no provider "nowhere"/);
    const agent = await runCli(['run', 'explor', 'x', '--cwd', project.dir], env, project.dir);
    expect(agent.code).toBe(1);
    expect(agent.stderr).toMatch(/unknown agent type "explor" \(did you mean "explore"\?\)/);
    const turns = await runCli(
      ['run', 'doer', 'x', '--max-turns', '100000', '--agents', agents],
      env,
      project.dir,
    );
    expect(turns.code).toBe(2);
    expect(turns.stderr).toMatch(/--max-turns: must be from 1 to 10000 \(got 100000\)/);
    const timeout = await runCli(
      ['run', 'doer', 'x', '--timeout', '0', '--agents', agents],
      env,
      project.dir,
    );
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toMatch(/--timeout: must be from 0.001 to 86400 seconds/);
  });

  it('--record with the offline model is an error, not a silent empty cassette', async () => {
    const cassette = path.join(project.dir, 'never.jsonl');
    const r = await runCli(
      ['run', 'explore', 'x', '--record', cassette, '--cwd', project.dir],
      {},
      project.dir,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--record: this run would use the embedded offline model/);
    await expect(readFile(cassette)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('config', () => {
  const withConfig = async (name: string, text: string) => {
    const dir = path.join(project.dir, name);
    await mkdir(path.join(dir, '.cadre'), { recursive: true });
    await writeFile(path.join(dir, '.cadre', 'config.json'), text);
    return dir;
  };

  it('a duplicate key is an error naming the key and both lines, in validate and before any run', async () => {
    const dir = await withConfig(
      'dup',
      '{\n  "permissions": { "deny": ["Bash(rm:*)"] },\n  "concurrency": 4,\n  "permissions": { "allow": ["Bash"] }\n}\n',
    );
    const validate = await runCli(['agents', 'validate', '--cwd', dir], env, dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(/config\.json:4: duplicate key "permissions" \(lines 2 and 4\)/);
    const run = await runCli(['run', 'doer', 'x', '--agents', agents, '--cwd', dir], env, dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/invalid configuration:\n.*duplicate key "permissions" \(lines 2 and 4\)/);
  });

  it('a config nested 5,000 levels deep, one over 4 MiB, and a value out of its range are errors naming the file', async () => {
    const deep = await withConfig('deep', `{"agents": ${'{"a": '.repeat(5000)}1${'}'.repeat(5000)}}`);
    const r = await runCli(['agents', 'validate', '--cwd', deep], env, deep);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/deep\/\.cadre\/config\.json:1: nested deeper than 64 levels/);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/Maximum call stack|\n\s+at /);
    const huge = await withConfig('huge', `{"$schema": "${'x'.repeat(5 * 1024 * 1024)}"}`);
    const size = await runCli(['agents', 'validate', '--cwd', huge], env, huge);
    expect(size.code).toBe(1);
    expect(size.stdout).toMatch(
      /huge\/\.cadre\/config\.json:1: the file is \d+ characters long, over the 4194304-character limit/,
    );
    const big = await withConfig('range', '{ "concurrency": 100000 }');
    const range = await runCli(['agents', 'validate', '--cwd', big], env, big);
    expect(range.stdout).toMatch(/concurrency: must be at most 1024 \(got 100000\)/);
  });
});
