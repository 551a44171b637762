// `cadre batch` where it used to lose data or mislead, through the compiled CLI and the real SDK
// against the fake Messages API: two batches on one results file, a full disk, SIGTERM and SIGHUP,
// a torn results line, task files with nothing to run, `--json`, YAML aliases, bad flags, and
// refused effects in the summary.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  textReply,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { runCli, startCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';

let server: FakeAnthropic;
let project: Awaited<ReturnType<typeof tempProject>>;
let env: Record<string, string>;

const agents = JSON.stringify({
  worker: { description: 'batch worker', prompt: 'You answer briefly.', tools: ['LS'] },
  writer: { description: 'writes', prompt: 'You write files.', tools: ['Write'] },
});

beforeAll(async () => {
  project = await tempProject({ 'a.txt': 'a\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      const first = req.body.messages[0]?.content;
      const prompt = typeof first === 'string' ? first : JSON.stringify(first);
      const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
      if (prompt.includes('kind=slow')) return textReply('late', { latencyMs: 30_000 });
      if (prompt.includes('kind=write') && turn === 0)
        return toolUseReply([{ name: 'Write', input: { file_path: 'w.txt', content: 'x' } }]);
      return textReply(`done ${prompt.slice(0, 40)}`, { latencyMs: prompt.includes('kind=paced') ? 100 : 0 });
    },
  });
  env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

type Row = { id: string; status: string; refused?: number; error?: { message: string } };
const readResults = async (file: string): Promise<Row[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);

const tasksFile = async (name: string, tasks: object[] | string) => {
  const file = path.join(project.dir, name);
  await writeFile(
    file,
    typeof tasks === 'string' ? tasks : `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`,
  );
  return file;
};
const batch = (file: string, out: string, ...extra: string[]) => [
  'batch',
  file,
  '--out',
  out,
  '--agents',
  agents,
  '--cwd',
  project.dir,
  ...extra,
];
const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
const children = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const until = async (check: () => boolean | Promise<boolean>, ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25)))
    if (await check()) return true;
  return check();
};
const lineCount = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

describe('one batch per results file', () => {
  it('a second batch on the same --out refuses, naming the pid that holds it; the first finishes alone', async () => {
    const tasks = Array.from({ length: 30 }, (_, i) => ({
      id: `l${i}`,
      agent: 'worker',
      prompt: `t${i} kind=paced`,
    }));
    const file = await tasksFile('lock.jsonl', tasks);
    const out = path.join(project.dir, 'lock-results.jsonl');
    const first = startCli(batch(file, out, '--concurrency', '2'), env, project.dir);
    expect(await until(() => exists(`${out}.lock`), 10_000)).toBe(true);
    const second = await runCli(batch(file, out), env, project.dir);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`${out} is in use by another cadre batch (pid ${first.child.pid}`);
    const r = await first.done;
    expect(r.code, r.stderr.slice(-1000)).toBe(0);
    const results = await readResults(out);
    expect(results).toHaveLength(30);
    expect(new Set(results.map((x) => x.id)).size).toBe(30);
    expect(await exists(`${out}.lock`)).toBe(false);
  }, 60_000);

  it('takes over the lock of a batch that died without removing it', async () => {
    const file = await tasksFile('stale.jsonl', [{ id: 's1', agent: 'worker', prompt: 'one' }]);
    const out = path.join(project.dir, 'stale-results.jsonl');
    // A pid that no process has: the holder is gone.
    await writeFile(`${out}.lock`, JSON.stringify({ pid: 4_000_000, host: os.hostname(), startedAt: 1 }));
    const r = await runCli(batch(file, out), env, project.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(await readResults(out)).toHaveLength(1);
    expect(await exists(`${out}.lock`)).toBe(false);
  });
});

describe('a results file that cannot be written', () => {
  let mount: string | undefined;
  beforeAll(async () => {
    // A full disk: a 16 KiB tmpfs (needs root, as CI has).
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir], { stdio: 'ignore' });
      mount = dir;
    } catch {
      await rm(dir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    if (mount === undefined) return;
    execFileSync('umount', [mount]);
    await rm(mount, { recursive: true, force: true });
  });

  it('names the file, stops launching at once, cancels, closes and exits 1 with a summary', async (context) => {
    if (mount === undefined) return context.skip('cannot mount a tmpfs here (not root)');
    const tasks = Array.from({ length: 300 }, (_, i) => ({
      id: `f${i}`,
      agent: 'worker',
      prompt: `task ${i} kind=paced`,
    }));
    const file = await tasksFile('full.jsonl', tasks);
    const out = path.join(mount, 'results.jsonl');
    const before = server.requestCount;
    const r = await runCli(batch(file, out, '--concurrency', '4'), env, project.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot write results file ${out}: ENOSPC`);
    expect(r.stderr).toMatch(/stopping: no new task starts, running tasks are cancelled/);
    expect(r.stderr).toMatch(/batch: \d+ of \d+ tasks ended/);
    expect(r.stderr).toMatch(/result\(s\) could not be written; those tasks run again when you resume/);
    const written = (await readFile(out, 'utf8')).split('\n').filter((l) => l.endsWith('}')).length;
    expect(written).toBeGreaterThan(5);
    expect(written).toBeLessThan(300);
    // Nothing ran on after the failure: at most the tasks already running (4) were started past it.
    expect(server.requestCount - before).toBeLessThanOrEqual(written + 8);
    expect(await exists(`${out}.lock`)).toBe(false);
  }, 60_000);
});

describe('stop signals', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal}: running tasks are cancelled and recorded, results flushed, nothing left running, exit ${code}`, async () => {
      const tasks = Array.from({ length: 12 }, (_, i) => ({
        id: `${signal}${i}`,
        agent: 'worker',
        prompt: `t${i} kind=slow`,
      }));
      const file = await tasksFile(`${signal}.jsonl`, tasks);
      const out = path.join(project.dir, `${signal}-results.jsonl`);
      const run = startCli(
        batch(file, out, '--concurrency', '3', '--isolation', 'process'),
        env,
        project.dir,
      );
      // The batch process, and a worker process per running task under it.
      let batchPid = 0;
      expect(
        await until(() => {
          batchPid = children(run.child.pid ?? 0)[0] ?? 0;
          return batchPid > 0 && children(batchPid).length >= 3;
        }, 15_000),
      ).toBe(true);
      const workers = children(batchPid);
      run.child.kill(signal);
      const r = await run.done;
      expect(r.code, r.stderr.slice(-1500)).toBe(code);
      expect(r.stderr).toMatch(new RegExp(`received ${signal}`));
      const results = await readResults(out);
      expect(results).toHaveLength(3);
      expect(results.every((x) => x.status === 'cancelled')).toBe(true);
      expect(r.stderr).toMatch(/statuses: cancelled 3/);
      for (const pid of [batchPid, ...workers]) expect(await until(() => !alive(pid), 10_000)).toBe(true);
      expect(await exists(`${out}.lock`)).toBe(false);
      const transcript = await readFile(
        (JSON.parse((await readFile(out, 'utf8')).split('\n')[0] ?? '{}') as { transcriptPath: string })
          .transcriptPath,
        'utf8',
      );
      expect(JSON.parse(transcript.trimEnd().split('\n').at(-1) ?? '')).toMatchObject({
        status: 'cancelled',
      });
    }, 60_000);
  }
});

describe('the results file', () => {
  it('a torn last line is moved aside: the file stays valid JSONL, and its task runs again', async () => {
    const file = await tasksFile('torn.jsonl', [
      { id: 'a', agent: 'worker', prompt: 'one' },
      { id: 'b', agent: 'worker', prompt: 'two' },
    ]);
    const out = path.join(project.dir, 'torn-results.jsonl');
    const first = await runCli(batch(file, out), env, project.dir);
    expect(first.code).toBe(0);
    const [line] = (await readFile(out, 'utf8')).split('\n');
    // As a kill mid-write leaves it: one whole line, then half of the next.
    await writeFile(out, `${line}\n${(await readFile(out, 'utf8')).split('\n')[1]?.slice(0, 40)}`);
    const again = await runCli(batch(file, out), env, project.dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /line 2 of .*torn-results\.jsonl was not a result .*moved to .*torn-results\.jsonl\.torn/,
    );
    const results = await readResults(out); // throws if any line is not JSON
    expect(results.map((x) => x.id).sort()).toEqual(['a', 'b']);
    expect((await readFile(`${out}.torn`, 'utf8')).trim()).toHaveLength(40);
  });

  it('a finished batch run again has nothing to do and says so; --json prints the summary', async () => {
    const file = await tasksFile('done.jsonl', [
      { id: 'a', agent: 'worker', prompt: 'one' },
      { id: 'b', agent: 'writer', prompt: 'kind=write' },
    ]);
    const out = path.join(project.dir, 'done-results.jsonl');
    const first = await runCli(batch(file, out, '--json'), env, project.dir);
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      total: 2,
      done: 2,
      statuses: { completed: 2 },
      refused: { calls: 1, tasks: 1 },
      alreadyDone: 0,
      invalidLines: 0,
      results: out,
      exitCode: 0,
    });
    expect(first.stderr).toMatch(/refused: 1 capability calls in 1 task\(s\)/);
    expect((await readResults(out)).find((x) => x.id === 'b')?.refused).toBe(1);
    const again = await runCli(batch(file, out, '--json'), env, project.dir);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /nothing to do: 2 tasks already have results in .*done-results\.jsonl \(completed 2\)/,
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ total: 0, done: 0, alreadyDone: 2, exitCode: 0 });
  });
});

describe('tasks files and flags', () => {
  it.each([
    ['empty.jsonl', '', /no task to run: .*empty\.jsonl is empty/],
    [
      'garbage.jsonl',
      '\u0000\u0001\u0002 not json at all\n',
      /no task to run: every entry of .*garbage\.jsonl was skipped/,
    ],
    [
      'allbad.jsonl',
      '{"id": "x", "agent": "wroker", "prompt": "p"}\n{"id": "y"}\n',
      /no task to run: every entry/,
    ],
  ])('%s: exits 2 with the reason', async (name, content, reason) => {
    const file = await tasksFile(name, content);
    const r = await runCli(batch(file, path.join(project.dir, `${name}.out`)), env, project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(reason);
    if (name === 'allbad.jsonl')
      expect(r.stderr).toMatch(/unknown agent "wroker" \(did you mean "worker"\?\)/);
  });

  it('resolves YAML anchors and aliases, and refuses an alias bomb with its line', async () => {
    const yaml = [
      'defaults: &d',
      '  agent: worker',
      'tasks:',
      '  - id: y1',
      '    <<: *d',
      '    prompt: first',
      '  - {id: y2, agent: *agentname, prompt: x}',
      '  - id: y3',
      '    agent: worker',
      '    prompt: &p shared prompt',
      '  - {id: y4, agent: worker, prompt: *p}',
    ].join('\n');
    const file = await tasksFile('aliases.yaml', yaml);
    const out = path.join(project.dir, 'aliases-results.jsonl');
    const r = await runCli(batch(file, out), env, project.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/aliases\.yaml:7: skipped: invalid YAML: .*agentname/);
    expect((await readResults(out)).map((x) => x.id).sort()).toEqual(['y1', 'y3', 'y4']);
    const lol = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (const [name, prev] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
    ])
      lol.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    const bomb = await tasksFile(
      'bomb.yaml',
      `${lol.join('\n')}\ntasks:\n  - {id: z1, agent: worker, prompt: ok}\n  - {id: z2, agent: worker, prompt: *f}\n`,
    );
    const b = await runCli(batch(bomb, path.join(project.dir, 'bomb-results.jsonl')), env, project.dir);
    expect(b.code).toBe(0);
    expect(b.stderr).toMatch(/bomb\.yaml:9: skipped: the entry expands more than 100 YAML aliases/);
  });

  it('flags: --out that is a directory, --concurrency out of range, --model mistyped', async () => {
    const file = await tasksFile('flags.jsonl', [{ id: 'a', agent: 'worker', prompt: 'one' }]);
    const dir = path.join(project.dir, 'a-dir');
    await mkdir(dir, { recursive: true });
    const out = await runCli(batch(file, dir), env, project.dir);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      `--out: ${dir} is a directory; give a file path such as ${path.join(dir, 'results.jsonl')}`,
    );
    const many = await runCli(
      batch(file, path.join(project.dir, 'x.jsonl'), '--concurrency', '100000'),
      env,
      project.dir,
    );
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/--concurrency: must be from 1 to 1024 \(got 100000\)/);
    const model = await runCli(
      batch(file, path.join(project.dir, 'x.jsonl'), '--model', 'hiaku'),
      env,
      project.dir,
    );
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/--model: unknown model alias "hiaku" \(did you mean "haiku"\?\)/);
    expect(await lineCount(path.join(project.dir, 'x.jsonl'))).toBe(0);
  });
});
